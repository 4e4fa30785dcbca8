import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

// Quiet, local defaults for the handlers' Powertools (read when their modules load, below).
process.env.POWERTOOLS_SERVICE_NAME ??= 'local-platform';
process.env.POWERTOOLS_LOG_LEVEL ??= 'WARN';
process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
// The SDK's notice concerns releases after January 2027, not the pinned versions; Lambda runs Node 22.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const usage = `Usage: npm start -- [--port N] [--control-port N] [--edge-port N] [--dashboard-port N] [--dns HOST:PORT]
                    [--keys-out FILE] [--data DIR] [--processor FILE]

Runs the Messages API on 127.0.0.1 with local DynamoDB (dynalite) and SQS (fauxqs).
  --port N          API port (default 3000); the API is served at the root: POST http://127.0.0.1:N/messages
  --control-port N  control API port (default 3001): accounts, keys, plans, bans, usage (npm run platform)
  --edge-port N     local edge port (default 8080): serves projects by Host header, e.g. curl -H 'Host: <slug>.platform.example.com'
  --dashboard-port N  dashboard port (default 3002): keys, plan and usage, projects and domains (development sign-in)
  --dns HOST:PORT   DNS server for custom-domain checks (default: the system resolver), e.g. --dns 127.0.0.1:5353
  --keys-out FILE   write the demo keys as JSON {"free": "...", "pro": "...", "business": "...", "enterprise": "..."}
  --data DIR        keep state in DIR (default: in memory)
  --processor FILE  the worker runs this processor module (TypeScript or JavaScript exporting processMessage,
                    see docs/processor.md; default: processors/default.ts, which accepts every message)
  --help            show this help`;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: '3000' },
      'control-port': { type: 'string', default: '3001' },
      'edge-port': { type: 'string', default: '8080' },
      'dashboard-port': { type: 'string', default: '3002' },
      dns: { type: 'string' },
      'keys-out': { type: 'string' },
      data: { type: 'string' },
      processor: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(usage);
    return;
  }
  const [port, controlPort, edgePort, dashboardPort] = (['port', 'control-port', 'edge-port', 'dashboard-port'] as const)
    .map((name) => portFlag(`--${name}`, values[name]));
  if (values.dns !== undefined && !/^[^\s:]+:\d{1,5}$/.test(values.dns)) {
    console.error(`--dns must be HOST:PORT such as 127.0.0.1:5353, got "${values.dns}"\n\n${usage}`);
    process.exit(2);
  }

  // Before anything starts: a processor that cannot run stops here, in one line (main's catch).
  const { loadProcessorModule } = await import('../local/processor-module.js');
  const processor = values.processor === undefined ? undefined : await loadProcessorModule(values.processor);

  const started = Date.now();
  const { buildDashboard } = await import('../local/dashboard.js');
  // Built on first start and after a change to dashboard/, so npm start needs no build step.
  const distDir = await buildDashboard({ quiet: true });
  const { startLocalPlatform } = await import('../local/platform.js');
  const platform = await startLocalPlatform({
    port,
    controlPort,
    edgePort,
    dashboard: { port: dashboardPort, distDir },
    demoProject: true,
    ...(values.dns ? { dnsServers: [values.dns] } : {}),
    ...(values.data ? { dataDir: values.data } : {}),
    ...(processor ? { processor } : {}),
  });

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`\n${signal}: stopping…`);
    await platform.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  if (values['keys-out'])
    writeFileSync(values['keys-out'], `${JSON.stringify(platform.demoKeys, null, 2)}\n`, { mode: 0o600 });

  const plans = platform.config.plans;
  console.log(`Messages API running at ${platform.baseUrl} (ready in ${Date.now() - started} ms)`);
  console.log(`Dashboard at ${platform.dashboardUrl ?? ''} (development sign-in: ${platform.demoOwners.map((o) => o.email).join(', ')}, or any email)`);
  console.log(`Control API at ${platform.controlUrl} (loopback only; see npm run platform -- --help)`);
  console.log(`Edge (projects by Host header) at ${platform.edgeUrl}; custom domains point at their own <token>.${platform.platformHost}`);
  console.log('  Certificates are SIMULATED locally: issued once DNS verifies and CAA allows Amazon.');
  console.log(`  DNS checks use ${values.dns ?? 'the system resolver'}.`);
  console.log(`Processor: ${values.processor ?? 'processors/default.ts (accepts every message)'}`);
  console.log(`State: ${values.data ? `persisted in ${values.data}` : 'in memory'}\n`);
  console.log('Demo API keys (shown once; stored only as hashes):');
  for (const [plan, key] of Object.entries(platform.demoKeys)) {
    const { perMinute, perDay } = plans[plan as keyof typeof plans].limits;
    console.log(`  ${plan.padEnd(10)} ${key}   (${perMinute}/min, ${perDay}/day)`);
  }
  if (values['keys-out']) console.log(`\nKeys written to ${values['keys-out']}`);
  console.log(`\nTry it:\n  curl -i -X POST ${platform.baseUrl}/messages \\
    -H "Authorization: Bearer ${platform.demoKeys.free}" \\
    -H "Content-Type: application/json" -d '{"message":"Hello"}'\n`);
  console.log('Press Ctrl+C to stop.');
}

function portFlag(flag: string, value: string | undefined): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    console.error(`${flag} must be a port number, got "${value}"\n\n${usage}`);
    process.exit(2);
  }
  return port;
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
