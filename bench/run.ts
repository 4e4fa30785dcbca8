/** `npm run bench [-- --smoke | --only <figures>]`: one line per figure, then bench/results/ (bench/README.md). */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { type BenchOptions, type Figure, figureLine, onPlatform, quietPowertools, UNLIMITED } from './lib.js';

quietPowertools();

const options: BenchOptions = { smoke: process.argv.includes('--smoke') };
/** `--only <name>[,<name>]`: run just these figures (e.g. local-e2e); results go to results/only.tmp. */
const onlyArg = process.argv.indexOf('--only');
const only = onlyArg === -1 ? undefined : new Set((process.argv[onlyArg + 1] ?? '').split(','));
const wanted = (name: string) => only === undefined || only.has(name);
const figures: Figure[] = [];
const timings: Record<string, number> = {};
const started = performance.now();

/** Runs `fn` when one of `names` is wanted, timed as `timing`, and prints its figures. */
async function measure(timing: string, fn: () => Promise<Figure | Figure[]>, names = [timing]) {
  if (!names.some(wanted)) return;
  const t = performance.now();
  try {
    for (const f of [await fn()].flat()) {
      figures.push(f);
      console.log(figureLine(f));
    }
  } finally {
    timings[timing] = Math.round(performance.now() - t);
  }
}

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
  const { deploys } = await import('./deploys.js');
  const { webhooksBench } = await import('./webhooks.js');
  const { loadConfig } = await import('../lib/config/index.js');

  console.log(`# bench ${options.smoke ? '--smoke' : 'full run'} · node ${process.version} · ${cpus().length} cores · ${new Date().toISOString()}`);
  console.log('# figure | value | goal | pass/fail/context');

  await measure('handler-overhead', () => handlerOverhead(options));

  // One platform for these, Enterprise limits raised so the limiter never refuses; no queue worker,
  // so the figure is the POST path (the worker would compete for the same 2 cores).
  if (['bundle-size', 'cold-start', 'local-e2e', 'round-trips', 'cost-per-million'].some(wanted)) {
    const config = loadConfig({ plans: { enterprise: { limits: UNLIMITED } } });
    await onPlatform({ worker: false, config }, async (platform) => {
      await measure('bundle-and-cold-start', () => bundleAndColdStart(platform, options), ['bundle-size', 'cold-start']);
      await measure('local-e2e', () => localE2e(platform, options));
      await measure('round-trips', () => roundTrips(platform, options));
      await measure('cost-per-million', () => costPerMillion(platform, options));
    });
  }
  await measure('limiter-exactness', () => limiterExactness(options));
  await measure('deploys', () => deploys(options));
  await measure('limiter-scale', () => limiterScale(options));
  await measure('synth', async () => synthTime(options));
  await measure('webhooks', () => webhooksBench(options));

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
