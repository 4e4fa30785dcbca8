import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { loadConfig } from '../lib/config/index.js';
import { ENV, HANDLER_ENTRIES } from '../lib/constructs/messages/runtime-contract.js';
import { LAMBDA_BUNDLE, REPO_ROOT } from '../lib/constructs/shared/platform-function.js';
import { type BenchOptions, type Figure, median, round } from './lib.js';

/** Dummy values for every variable the handler modules read at init (nothing is called). */
function handlerEnv(): NodeJS.ProcessEnv {
  const config = loadConfig();
  return {
    PATH: process.env.PATH,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'bench',
    AWS_SECRET_ACCESS_KEY: 'bench',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    POWERTOOLS_SERVICE_NAME: 'bench',
    POWERTOOLS_METRICS_NAMESPACE: 'MessagesPlatform',
    [ENV.apiKeysTable]: 'ApiKeys',
    [ENV.rateLimitsTable]: 'RateLimits',
    [ENV.messagesTable]: 'Messages',
    [ENV.idempotencyTable]: 'Idempotency',
    [ENV.queueUrl]: 'http://127.0.0.1:1/000000000000/messages',
    [ENV.limitsConfig]: JSON.stringify({ plans: config.plans, anonymous: config.anonymous }),
    [ENV.messagesConfig]: JSON.stringify(config.messages),
    [ENV.pooledUsageKeys]: JSON.stringify({ free: 'v1', pro: 'v2', business: 'v3', enterprise: 'v4', anonymous: 'v5' }),
    [ENV.keyCacheSeconds]: '30',
  };
}

/** Time (ms) to import `specifiers` in a fresh Node process, measured inside it (boot excluded). */
function importTimeMs(specifiers: readonly string[], env: NodeJS.ProcessEnv): number {
  const script =
    `const t=performance.now();Promise.all(${JSON.stringify(specifiers)}.map((s)=>import(s)))` +
    '.then(()=>{process.stdout.write(String(performance.now()-t));process.exit(0)})' +
    '.catch((e)=>{console.error(e);process.exit(1)})';
  const out = execFileSync(process.execPath, ['-e', script], { cwd: REPO_ROOT, env, encoding: 'utf8' });
  return Number(out);
}

/**
 * esbuild exactly as PlatformFunction bundles (NodejsFunction, local bundling, run from the
 * repository root): its LAMBDA_BUNDLE options, ESM .mjs, source map kept apart.
 */
async function bundle(entry: string, outfile: string) {
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
    alias: { ...LAMBDA_BUNDLE.alias },
    metafile: true,
    logLevel: 'error',
  });
  const bundled = new Set<string>();
  for (const input of Object.keys(result.metafile?.inputs ?? {})) {
    const m = /node_modules\/(@(?:aws-sdk|smithy)\/[^/]+)\//.exec(input);
    if (m?.[1]) bundled.add(m[1]);
  }
  return { bytes: statSync(outfile).size, bundledSdkPackages: [...bundled].sort() };
}

/**
 * The AWS SDK v3 clients each function would import to make the calls it makes (the bundles use the
 * platform's own client, lambda/shared/aws): the baseline of the cold-start ratio.
 */
const SDK_CLIENTS_OF: Readonly<Record<keyof typeof HANDLER_ENTRIES, readonly string[]>> = {
  authorizer: ['@aws-sdk/client-dynamodb', '@aws-sdk/lib-dynamodb'],
  sendMessage: ['@aws-sdk/client-dynamodb', '@aws-sdk/lib-dynamodb', '@aws-sdk/client-sqs'],
  getMessage: ['@aws-sdk/client-dynamodb', '@aws-sdk/lib-dynamodb'],
  fallback: ['@aws-sdk/client-dynamodb', '@aws-sdk/lib-dynamodb'],
  worker: ['@aws-sdk/client-dynamodb', '@aws-sdk/lib-dynamodb'],
};

interface BundleFigures {
  kb: number;
  /** SDK packages found in the bundle (none since the platform's own client replaced the SDK). */
  bundledSdkPackages: string[];
  sdkPackages: readonly string[];
  initMs?: number;
  sdkImportMs?: number;
  ratio?: number;
}

export async function bundleAndColdStart(options: BenchOptions): Promise<Figure[]> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-bundles-'));
  const env = handlerEnv();
  const runs = options.smoke ? 2 : 7;
  try {
    const bundles: Record<string, BundleFigures> = {};
    for (const [name, entry] of Object.entries(HANDLER_ENTRIES)) {
      const outfile = join(dir, name, 'index.mjs');
      const { bytes, bundledSdkPackages } = await bundle(entry, outfile);
      const sdkPackages = SDK_CLIENTS_OF[name as keyof typeof HANDLER_ENTRIES];
      bundles[name] = { kb: round(bytes / 1024, 1), bundledSdkPackages, sdkPackages };
    }
    // Cold start: every bundle in full runs, the send-message one in smoke runs; interleaved runs.
    const timed = options.smoke ? ['sendMessage'] : Object.keys(bundles);
    for (const name of timed) {
      const b = bundles[name] as (typeof bundles)[string];
      const bundleUrl = new URL(`file://${join(dir, name, 'index.mjs')}`).href;
      const init: number[] = [];
      const sdk: number[] = [];
      for (let i = 0; i < runs; i++) {
        init.push(importTimeMs([bundleUrl], env));
        sdk.push(importTimeMs(b.sdkPackages, env));
      }
      b.initMs = round(median(init), 1);
      b.sdkImportMs = round(median(sdk), 1);
      b.ratio = round(b.initMs / b.sdkImportMs, 3);
    }
    const send = bundles.sendMessage as Required<(typeof bundles)[string]>;
    const sizes = Object.entries(bundles)
      .map(([n, b]) => `${n} ${b.kb} KB`)
      .join(', ');
    return [
      {
        figure: 'bundle-size (minified ESM, send-message)',
        value: `${send.kb} KB (${sizes})`,
        goal: 'send-message ≤ 150 KB',
        pass: send.kb <= 150,
        details: { bundles },
      },
      {
        figure: 'cold-start (send-message bundle init ÷ unbundled SDK client import)',
        value: `${round(send.ratio, 2)} (bundle ${send.initMs} ms vs ${send.sdkPackages.join(' + ')} ${send.sdkImportMs} ms; median of ${runs} fresh processes)`,
        goal: '≤ 0.33',
        pass: send.ratio <= 1 / 3,
        details: { runs, bundles: Object.fromEntries(timed.map((n) => [n, bundles[n]])) },
      },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
