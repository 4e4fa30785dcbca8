import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CloudAssembly, type SynthesizedFunction } from './support/cdk-out.js';
import { FUNCTIONS } from './support/stage.js';

// Every request passes the authorizer, and a send passes the send function: their bundles carry no
// schema library they do not need (issue 23 item 2). zod's classic build names its base schema
// class `$constructor("ZodType", …)`; zod/mini's is "ZodMiniType" and core's "$ZodType", so the
// bare string literal is there exactly when the classic build was bundled (minified or not).
const ZOD_CLASSIC = /["'`]ZodType["'`]/;
const REQUEST_PATH = ['authorizer', 'sendMessage', 'getMessage', 'fallback'] as const;

const functions = new CloudAssembly().functions();

function bundleOf(key: (typeof REQUEST_PATH)[number]): { file: string; text: string; bytes: number } {
  const fn = functions.find((f: SynthesizedFunction) => f.path === FUNCTIONS[key]);
  if (!fn) throw new Error(`${FUNCTIONS[key]} is not in cdk.out`);
  const [moduleName] = fn.handler.split('.');
  const file = join(fn.codeDir, `${moduleName}.mjs`);
  return { file, text: readFileSync(file, 'utf8'), bytes: statSync(file).size };
}

describe('the request-path bundles', () => {
  it.each(REQUEST_PATH)('%s carries no zod classic build', (key) => {
    const { file, text } = bundleOf(key);
    expect(ZOD_CLASSIC.test(text), `${file} contains zod's classic build (a lib/config or 'zod' import on its path)`).toBe(false);
  });

  it('the authorizer bundle is at most 1.1 times the send bundle', () => {
    const authorizer = bundleOf('authorizer').bytes;
    const send = bundleOf('sendMessage').bytes;
    expect(authorizer / send, `authorizer ${authorizer} B, send ${send} B`).toBeLessThanOrEqual(1.1);
  });
});
