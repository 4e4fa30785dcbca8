import madge from 'madge';
import { beforeAll, describe, expect, it } from 'vitest';

// Issue 23 item 7: no import cycle, between files or between capabilities (lambda/<capability>).
// A capability uses another only through its index.ts, and never the other way round as well.

let result: Awaited<ReturnType<typeof madge>>;

beforeAll(async () => {
  result = await madge(['lambda', 'contracts'], { fileExtensions: ['ts'], tsConfig: 'tsconfig.json' });
}, 60_000);

/** The cycles of a directed graph (each once, as the list of its nodes). */
function cyclesOf(edges: Record<string, readonly string[]>): string[][] {
  const cycles: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string) => {
    state.set(node, 'open');
    stack.push(node);
    for (const next of edges[node] ?? []) {
      if (state.get(next) === 'open') cycles.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(node, 'done');
  };
  for (const node of Object.keys(edges)) if (!state.has(node)) visit(node);
  return cycles;
}

describe('dependency cycles', () => {
  it('finds none between files of lambda/ and contracts/ (madge --circular)', () => {
    expect(result.circular()).toEqual([]);
  });

  it('finds none between capabilities (lambda/<capability> → lambda/<other>)', () => {
    const files = result.obj();
    const capabilityOf = (file: string) => /^lambda\/([^/]+)\//.exec(file)?.[1];
    const edges: Record<string, string[]> = {};
    for (const [file, imports] of Object.entries(files) as [string, string[]][]) {
      const from = capabilityOf(file);
      if (!from) continue;
      for (const imported of imports) {
        const to = capabilityOf(imported);
        const targets = (edges[from] ??= []);
        if (to && to !== from && to !== 'shared' && !targets.includes(to)) targets.push(to);
      }
    }
    expect(cyclesOf(edges)).toEqual([]);
  });

  it('detects a cycle when there is one (the check itself)', () => {
    expect(cyclesOf({ projects: ['domains'], domains: ['projects'] })).toEqual([['projects', 'domains', 'projects']]);
  });
});
