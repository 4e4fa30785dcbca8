/**
 * The AWS commercial regions, opt-in ones included: a list, so that a typo fails validation with a
 * suggestion. https://docs.aws.amazon.com/general/latest/gr/rande.html (2026-11)
 */
const AWS_REGIONS = [
  'us-east-1', 'us-east-2', 'us-west-1', 'us-west-2',
  'af-south-1',
  'ap-east-1', 'ap-east-2', 'ap-south-1', 'ap-south-2',
  'ap-southeast-1', 'ap-southeast-2', 'ap-southeast-3', 'ap-southeast-4', 'ap-southeast-5', 'ap-southeast-7',
  'ap-northeast-1', 'ap-northeast-2', 'ap-northeast-3',
  'ca-central-1', 'ca-west-1',
  'eu-central-1', 'eu-central-2', 'eu-west-1', 'eu-west-2', 'eu-west-3',
  'eu-south-1', 'eu-south-2', 'eu-north-1',
  'il-central-1', 'me-south-1', 'me-central-1',
  'mx-central-1', 'sa-east-1',
] as const;

/** Levenshtein distance, small strings only (region names). */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution);
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/** The known region closest to `region` when it is a likely typo (at most 2 edits away). */
export function closestRegion(region: string): string | undefined {
  let best: { name: string; d: number } | undefined;
  for (const name of AWS_REGIONS) {
    const d = distance(region, name);
    if (!best || d < best.d) best = { name, d };
  }
  return best && best.d <= 2 ? best.name : undefined;
}

export function isKnownRegion(region: string): boolean {
  return (AWS_REGIONS as readonly string[]).includes(region);
}
