import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadProcessorModule, ProcessorModuleError } from '../../local/processor-module.js';

describe('loadProcessorModule (npm start -- --processor FILE)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'processor-module-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };

  it('loads the shipped TypeScript processors', async () => {
    const processor = await loadProcessorModule('processors/default.ts');
    expect(await processor({ id: 'msg_x', accountId: 'a', keyId: 'k', message: 'm', createdAt: 't' }, { attempt: 1 })).toBeUndefined();
  });

  it('loads a JavaScript module', async () => {
    const processor = await loadProcessorModule(file('ok.mjs', 'export const processMessage = (m) => ({ got: m.message });'));
    expect(await processor({ id: 'i', accountId: 'a', keyId: 'k', message: 'hi', createdAt: 't' }, { attempt: 1 })).toEqual({ got: 'hi' });
  });

  it.each([
    ['a missing file', () => join(dir, 'missing.ts'), /no such file/],
    ['a syntax error', () => file('broken.ts', 'export const processMessage = (m) => {'), /broken\.ts: the module could not be loaded: \S/],
    ['no processMessage export', () => file('other.mjs', 'export const other = 1;'), /must export a function processMessage/],
  ])('refuses %s with one clear line', async (_what, path, message) => {
    const error = await loadProcessorModule(path()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProcessorModuleError);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).not.toContain('\n');
  });
});
