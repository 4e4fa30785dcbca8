import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// Every relative link of the documentation resolves: the file exists and, for a Markdown page, so
// does the heading an anchor names (GitHub's slugs). The README was split into docs/ pages by
// reader; a moved section must not leave a link behind.

const root = resolve(import.meta.dirname, '../..');

function markdownFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return markdownFiles(path);
    return name.endsWith('.md') ? [path] : [];
  });
}

/** GitHub's heading anchor: lower case, punctuation dropped (letters, digits, spaces, - and _ kept), spaces to -. */
function slugOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** Text outside fenced code blocks and inline code spans, where a `[x](y)` is a link. */
function prose(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, 'code');
}

function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const line of markdown.replace(/^```[\s\S]*?^```/gm, '').split('\n')) {
    const heading = /^#{1,6}\s+(.*)$/.exec(line);
    if (!heading) continue;
    const base = slugOf(heading[1] ?? '');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

interface Link { from: string; target: string }

function relativeLinks(file: string, markdown: string): Link[] {
  const links: Link[] = [];
  // [text](target) and [text](target "title"); text may hold inline code (kept as "code" by prose()).
  for (const match of prose(markdown).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
    const target = match[1] ?? '';
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:
    links.push({ from: file, target });
  }
  return links;
}

function brokenLinks(files: string[]): string[] {
  const broken: string[] = [];
  for (const file of files) {
    const markdown = readFileSync(file, 'utf8');
    for (const { target } of relativeLinks(file, markdown)) {
      const [path = '', anchor] = target.split('#', 2);
      const resolved = path === '' ? file : resolve(dirname(file), decodeURIComponent(path));
      const where = `${relative(root, file)} → ${target}`;
      if (!existsSync(resolved)) {
        broken.push(`${where}: no such file`);
        continue;
      }
      if (anchor !== undefined && resolved.endsWith('.md') && !anchorsOf(readFileSync(resolved, 'utf8')).has(anchor)) {
        broken.push(`${where}: no heading #${anchor}`);
      }
    }
  }
  return broken;
}

describe('documentation links', () => {
  const files = [join(root, 'README.md'), join(root, 'bench/README.md'), ...markdownFiles(join(root, 'docs'))];

  it('finds the pages and their links', () => {
    expect(files.length).toBeGreaterThanOrEqual(11);
    expect(files.flatMap((file) => relativeLinks(file, readFileSync(file, 'utf8'))).length).toBeGreaterThan(40);
  });

  it('resolves every relative link of README.md and docs/**/*.md to a file, and its anchor to a heading', () => {
    expect(brokenLinks(files)).toEqual([]);
  });

  it('keeps README.md at most 300 lines', () => {
    expect(readFileSync(join(root, 'README.md'), 'utf8').split('\n').length).toBeLessThanOrEqual(300);
  });

  it('slugs headings as GitHub does', () => {
    expect(slugOf('The limiter: one budget per account, exact at any scale')).toBe('the-limiter-one-budget-per-account-exact-at-any-scale');
    expect(slugOf('First deploy (runbook)')).toBe('first-deploy-runbook');
    expect(slugOf('Deploying (`npx cdk synth`, `cdk deploy`)')).toBe('deploying-npx-cdk-synth-cdk-deploy');
    expect(slugOf('Configuration: where it comes from, who reads which copy')).toBe('configuration-where-it-comes-from-who-reads-which-copy');
  });
});
