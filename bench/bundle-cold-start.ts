import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { ENV, HANDLER_ENTRIES } from '../contracts/messages.js';
import { LAMBDA_BUNDLE, REPO_ROOT } from '../lib/constructs/shared/platform-function.js';
import { LOCAL_TABLE_NAMES } from '../local/emulators.js';
import type { LocalPlatform } from '../local/platform.js';
import { authorizerEvent, sendEvent, workerEvent } from './events.js';
import { type BenchOptions, type Figure, median, NO_GOAL, round } from './lib.js';

type FunctionName = keyof typeof HANDLER_ENTRIES;
type BundleName = FunctionName | 'plainSdk' | 'sendMessageDefaultChain';
const FUNCTIONS = Object.keys(HANDLER_ENTRIES) as FunctionName[];

/** The bundles: every Messages API function, the plain SDK baseline, and (context) send-message without the credentials alias. */
const ENTRIES: ReadonlyArray<readonly [BundleName, string, boolean]> = [
  ...FUNCTIONS.map((name) => [name, HANDLER_ENTRIES[name], true] as const),
  ['plainSdk', 'bench/plain-sdk-entry.ts', false],
  ['sendMessageDefaultChain', HANDLER_ENTRIES.sendMessage, false],
];

/** esbuild exactly as PlatformFunction bundles (bench/README.md); `alias: false` keeps the SDK's default chain. */
async function bundle(entry: string, outfile: string, alias: boolean) {
  const result = await build({
    absWorkingDir: REPO_ROOT,
    entryPoints: [join(REPO_ROOT, entry)],
    outfile,
    bundle: true,
    platform: 'node',
    target: LAMBDA_BUNDLE.target,
    format: 'esm',
    minify: LAMBDA_BUNDLE.minify,
    sourcemap: true,
    sourcesContent: false,
    mainFields: [...LAMBDA_BUNDLE.mainFields],
    banner: { js: LAMBDA_BUNDLE.banner },
    external: [...LAMBDA_BUNDLE.external],
    alias: alias ? { ...LAMBDA_BUNDLE.alias } : {},
    metafile: true,
    logLevel: 'error',
  });
  const inputs = Object.keys(result.metafile?.inputs ?? {});
  const packages = inputs.flatMap((input) => /node_modules\/(@(?:aws-sdk|smithy)\/[^/]+)\//.exec(input)?.[1] ?? []);
  return { bytes: statSync(outfile).size, bundledSdkPackages: [...new Set(packages)].sort() };
}

/** The environment the construct gives the functions, pointed at the local platform's emulators by endpoint. */
function handlerEnv({ config, endpoints, queues }: LocalPlatform): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    AWS_ENDPOINT_URL_DYNAMODB: endpoints.dynamodb,
    AWS_ENDPOINT_URL_SQS: endpoints.sqs,
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    POWERTOOLS_SERVICE_NAME: 'bench',
    POWERTOOLS_METRICS_NAMESPACE: 'MessagesPlatform',
    POWERTOOLS_LOG_LEVEL: 'WARN',
    POWERTOOLS_METRICS_DISABLED: 'true',
    [ENV.apiKeysTable]: LOCAL_TABLE_NAMES.apiKeys,
    [ENV.rateLimitsTable]: LOCAL_TABLE_NAMES.rateLimits,
    [ENV.messagesTable]: LOCAL_TABLE_NAMES.messages,
    [ENV.idempotencyTable]: LOCAL_TABLE_NAMES.idempotency,
    [ENV.queueUrl]: queues.queueUrl,
    [ENV.limitsConfig]: JSON.stringify({ plans: config.plans, anonymous: config.anonymous }),
    [ENV.messagesConfig]: JSON.stringify(config.messages),
    [ENV.pooledUsageKeys]: JSON.stringify({ free: 'v1', pro: 'v2', business: 'v3', enterprise: 'v4', anonymous: 'v5' }),
    [ENV.keyCacheSeconds]: '30',
  };
}

/**
 * Init and first call, timed in a fresh Node process (bench/README.md). The SDK sends to fauxqs's
 * queue URLs on `sqs.<region>.localhost`, loopback (RFC 6761) that this box's resolver does not know.
 */
async function coldStart(bundleFile: string, event: unknown, env: NodeJS.ProcessEnv) {
  const script = `
    import dns from 'node:dns';
    const lookup = dns.lookup;
    dns.lookup = (name, options, callback) => {
      if (!name.endsWith('.localhost')) return lookup(name, options, callback);
      const cb = typeof options === 'function' ? options : callback;
      return options?.all ? cb(null, [{ address: '127.0.0.1', family: 4 }]) : cb(null, '127.0.0.1', 4);
    };
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const module = await import(${JSON.stringify(pathToFileURL(bundleFile).href)});
    const t1 = performance.now();
    const context = { awsRequestId: 'cold', functionName: 'bench', getRemainingTimeInMillis: () => 10000 };
    const result = await module.handler(JSON.parse(process.env.BENCH_EVENT), context);
    const t2 = performance.now();
    const cpu = process.cpuUsage(c0);
    const cpuMs = (cpu.user + cpu.system) / 1000;
    process.stdout.write(JSON.stringify({ initMs: t1 - t0, firstCallMs: t2 - t1, cpuMs, result: result ?? null }));
    process.exit(0);`;
  const { stdout: out, stderr } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], {
    cwd: tmpdir(),
    env: { ...env, BENCH_EVENT: JSON.stringify(event) },
    encoding: 'utf8',
  });
  type Answer = { statusCode?: number; principalId?: string } | null;
  return { ...(JSON.parse(out) as { initMs: number; firstCallMs: number; cpuMs: number; result: Answer }), stderr };
}
type Run = Awaited<ReturnType<typeof coldStart>>;

/** `ratio`, `cpuRatio`: init + first call ÷ the plain SDK bundle's, in wall and CPU time (bench/README.md). */
type BundleFigures = { kb: number; bundledSdkPackages: string[] } & {
  [k in 'initMs' | 'firstCallMs' | 'totalMs' | 'ratio' | 'cpuRatio']?: number;
};

export async function bundleAndColdStart(platform: LocalPlatform, options: BenchOptions): Promise<Figure[]> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-bundles-'));
  const runs = options.smoke ? 2 : 7;
  try {
    const bundles = {} as Record<BundleName, BundleFigures>;
    const files = {} as Record<BundleName, string>;
    for (const [name, entry, alias] of ENTRIES) {
      files[name] = join(dir, name, 'index.mjs');
      const { bytes, bundledSdkPackages } = await bundle(entry, files[name], alias);
      bundles[name] = { kb: round(bytes / 1024, 1), bundledSdkPackages };
    }

    const env = handlerEnv(platform);
    const account = platform.demoAccounts.enterprise;
    const { key, secret } = await platform.accountService.createKey(account.accountId, 'bench cold start');
    let n = 0;
    const events: Record<BundleName, () => unknown> = {
      authorizer: () => authorizerEvent(secret, `cold-${n++}`),
      sendMessage: () => sendEvent(n++, key.keyId, account.accountId),
      sendMessageDefaultChain: () => sendEvent(n++, key.keyId, account.accountId),
      getMessage: () => ({
        ...sendEvent(n++, key.keyId, account.accountId),
        httpMethod: 'GET',
        resource: '/messages/{id}',
        path: '/messages/msg_01JD8X3Q5Z8M2N4P6R7S9T0V1W',
        pathParameters: { id: 'msg_01JD8X3Q5Z8M2N4P6R7S9T0V1W' },
        body: null,
      }),
      fallback: () => ({ ...sendEvent(n++, key.keyId, account.accountId), httpMethod: 'DELETE', path: '/nothing', body: null }),
      worker: () => {
        const id = `msg_01JD8X3Q5Z8M2N4P6R7S9T${String(n++).padStart(4, '0')}`;
        return workerEvent([{ v: 1, id, accountId: account.accountId, createdAt: new Date().toISOString() }]);
      },
      plainSdk: () => ({
        rateLimitsTable: LOCAL_TABLE_NAMES.rateLimits,
        messagesTable: LOCAL_TABLE_NAMES.messages,
        queueUrl: platform.queues.queueUrl,
        id: `msg_plain_${n++}`,
      }),
    };
    const expectations: Partial<Record<BundleName, (r: Run['result']) => boolean>> = {
      sendMessage: (r) => r?.statusCode === 202,
      sendMessageDefaultChain: (r) => r?.statusCode === 202,
      authorizer: (r) => r?.principalId === key.keyId,
      getMessage: (r) => r?.statusCode === 404,
      fallback: (r) => r?.statusCode === 404,
    };
    const once = async (name: BundleName) => {
      const run = await coldStart(files[name], events[name](), env);
      const ok = expectations[name];
      if (ok && !ok(run.result)) throw new Error(`cold start of ${name}: unexpected answer ${JSON.stringify(run.result)}\n${run.stderr}`);
      return run;
    };

    // Each bundle's runs interleaved with the baseline's, so drift on a shared box hits both alike.
    const timed: BundleName[] = options.smoke ? ['sendMessage'] : [...FUNCTIONS, 'sendMessageDefaultChain'];
    const baselineRuns: Run[] = [];
    const ms = (sample: readonly Run[], of: (run: Run) => number) => median(sample.map(of));
    const total = (run: Run) => run.initMs + run.firstCallMs;
    const cpu = (run: Run) => run.cpuMs;
    for (const name of timed) {
      const own: Run[] = [];
      const baseline: Run[] = [];
      for (let i = 0; i < runs; i++) {
        // Alternate which goes first, so that neither always runs right after the other's process.
        const pair = i % 2 === 0 ? [name, 'plainSdk'] as const : ['plainSdk', name] as const;
        for (const which of pair) (which === 'plainSdk' ? baseline : own).push(await once(which));
      }
      baselineRuns.push(...baseline);
      const b = bundles[name];
      b.initMs = round(ms(own, (r) => r.initMs), 1);
      b.firstCallMs = round(ms(own, (r) => r.firstCallMs), 1);
      b.totalMs = round(ms(own, total), 1);
      b.ratio = round(b.totalMs / ms(baseline, total), 2);
      b.cpuRatio = round(ms(own, cpu) / ms(baseline, cpu), 2);
    }
    bundles.plainSdk.totalMs = round(ms(baselineRuns, total), 1);

    const send = bundles.sendMessage;
    const sizes = FUNCTIONS.map((name) => `${name} ${bundles[name].kb} KB`).join(', ');
    const ratios = timed.map((name) => `${name} ${bundles[name].ratio} (CPU ${bundles[name].cpuRatio})`).join(', ');
    return [
      {
        figure: 'bundle-size (minified ESM, send-message)',
        value: `${send.kb} KB (${sizes}; plain SDK baseline ${bundles.plainSdk.kb} KB, send-message without the credentials alias ${bundles.sendMessageDefaultChain.kb} KB)`,
        goal: NO_GOAL,
        pass: null,
        details: { bundles },
      },
      {
        figure: 'cold-start (send-message bundle init + first call ÷ plain SDK v3 bundle, same calls)',
        value:
          `${send.ratio} (${send.initMs} ms init + ${send.firstCallMs} ms first call vs plain SDK ${bundles.plainSdk.totalMs} ms;` +
          ` median of ${runs} fresh processes; ${ratios})`,
        goal: NO_GOAL,
        pass: null,
        details: { runs, bundles: Object.fromEntries([...timed, 'plainSdk'].map((n) => [n, bundles[n as BundleName]])) },
      },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
