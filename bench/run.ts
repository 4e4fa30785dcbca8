/**
 * `npm run bench` (full, < 10 min) or `npm run bench -- --smoke` (tiny counts, < 60 s): one line
 * per figure, `figure | value | goal | pass/fail/context`, then bench/results/latest.json (full runs) or
 * bench/results/smoke.tmp (smoke runs, git-ignored). See bench/README.md.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { type BenchOptions, type Figure, figureLine, quietPowertools } from './lib.js';

quietPowertools();

const options: BenchOptions = { smoke: process.argv.includes('--smoke') };
/** `--only <name>[,<name>]`: run just these figures (e.g. local-e2e); results go to results/only.tmp. */
const onlyArg = process.argv.indexOf('--only');
const only = onlyArg === -1 ? undefined : new Set((process.argv[onlyArg + 1] ?? '').split(','));
const wanted = (name: string) => only === undefined || only.has(name);
const figures: Figure[] = [];
const timings: Record<string, number> = {};
const started = performance.now();

function report(f: Figure) {
  figures.push(f);
  console.log(figureLine(f));
}

async function timed<T>(name: string, fn: () => Promise<T>): Promise<T> {
  const t = performance.now();
  try {
    return await fn();
  } finally {
    timings[name] = Math.round(performance.now() - t);
  }
}

/** Limits the limiter never reaches: the throughput figures measure the accepting path. */
const UNLIMITED = { perMinute: 1_000_000_000, perDay: 1_000_000_000 };

/** Tiny limits for the smoke run. */
const SMOKE_LIMITS = {
  plans: {
    free: { limits: { perMinute: 5, perDay: 100 } },
    pro: { limits: { perMinute: 10, perDay: 100 } },
    business: { limits: { perMinute: 20, perDay: 200 } },
    enterprise: { limits: { perMinute: 30, perDay: 300 } },
  },
};

/**
 * Shipped Free and Pro limits; Business and Enterprise lowered to 400 and 500/min so the run stays
 * within 10 minutes on a shared 2-core box (exactness does not depend on the size of the limit).
 */
const FULL_LIMITS = {
  plans: {
    business: { limits: { perMinute: 400, perDay: 100_000 } },
    enterprise: { limits: { perMinute: 500, perDay: 1_000_000 } },
  },
};

async function main() {
  // Imported after quietPowertools(): the handler modules read POWERTOOLS_* when loaded.
  const { handlerOverhead } = await import('./handler-overhead.js');
  const { bundleAndColdStart } = await import('./bundle-cold-start.js');
  const { localE2e } = await import('./local-e2e.js');
  const { roundTrips } = await import('./round-trips.js');
  const { costPerMillion } = await import('./cost-per-million.js');
  const { limiterExactness } = await import('./limiter-exactness.js');
  const { limiterScale } = await import('./limiter-scale.js');
  const { synthTime } = await import('./synth.js');
  const { startLocalPlatform } = await import('../local/platform.js');
  const { loadConfig } = await import('../lib/config/index.js');
  const { ManualClock } = await import('../test/support/clock.js');

  console.log(`# bench ${options.smoke ? '--smoke' : 'full run'} · node ${process.version} · ${cpus().length} cores · ${new Date().toISOString()}`);
  console.log('# figure | value | goal | pass/fail/context');

  if (wanted('handler-overhead')) report(await timed('handler-overhead', () => handlerOverhead(options)));

  // One platform for cold starts, throughput, round trips and cost: Enterprise limits raised so the
  // limiter never refuses; no queue worker, so the figure is the POST path (the worker would
  // compete for the same 2 cores).
  const onPlatform = ['bundle-size', 'cold-start', 'local-e2e', 'round-trips', 'cost-per-million'];
  const e2ePlatform =
    onPlatform.some(wanted)
      ? await startLocalPlatform({
          port: 0,
          controlPort: 0,
          edgePort: 0,
          worker: false,
          config: loadConfig({ plans: { enterprise: { limits: UNLIMITED } } }),
        })
      : undefined;
  try {
    if (e2ePlatform && (wanted('bundle-size') || wanted('cold-start'))) {
      for (const f of await timed('bundle-and-cold-start', () => bundleAndColdStart(e2ePlatform, options))) report(f);
    }
    if (e2ePlatform && wanted('local-e2e')) report(await timed('local-e2e', () => localE2e(e2ePlatform, options)));
    if (e2ePlatform && wanted('round-trips')) report(await timed('round-trips', () => roundTrips(e2ePlatform, options)));
    if (e2ePlatform && wanted('cost-per-million')) {
      report(await timed('cost-per-million', () => costPerMillion(e2ePlatform, options)));
    }
  } finally {
    await e2ePlatform?.stop();
  }

  // Limiter exactness on its own platform with a manual clock (each burst in a minute of its own).
  if (wanted('limiter-exactness')) {
    const clock = new ManualClock();
    const limitsPlatform = await startLocalPlatform({
      port: 0,
      controlPort: 0,
      edgePort: 0,
      worker: false,
      clock,
      config: loadConfig(options.smoke ? SMOKE_LIMITS : FULL_LIMITS),
    });
    try {
      report(await timed('limiter-exactness', () => limiterExactness(limitsPlatform, clock, options)));
    } finally {
      await limitsPlatform.stop();
    }
  }
  if (wanted('deploys')) for (const f of await timed('deploys', async () => (await import('./deploys.js')).deploys(options))) report(f);
  // Simulated time: counts and ratios that do not depend on how busy the box is.
  if (wanted('limiter-scale')) report(await timed('limiter-scale', () => limiterScale(options)));
  if (wanted('synth')) report(await timed('synth', async () => synthTime(options)));
  if (wanted('webhooks')) for (const f of await timed('webhooks', () => import('./webhooks.js').then((m) => m.webhooksBench(options)))) report(f);

  const totalSeconds = Math.round((performance.now() - started) / 100) / 10;
  console.log(`# total ${totalSeconds} s`);
  const results = {
    mode: options.smoke ? 'smoke' : 'full',
    command: `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`,
    at: new Date().toISOString(),
    node: process.version,
    cores: cpus().length,
    totalSeconds,
    timingsMs: timings,
    figures,
  };
  const dir = fileURLToPath(new URL('./results/', import.meta.url));
  mkdirSync(dir, { recursive: true });
  // A partial run (--only) never replaces the full run's results.
  const file = only ? 'only.tmp' : options.smoke ? 'smoke.tmp' : 'latest.json';
  writeFileSync(`${dir}${file}`, `${JSON.stringify(results, null, 2)}\n`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error('bench failed:', error);
    process.exit(1);
  },
);
