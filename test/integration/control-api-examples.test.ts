import { describe, expect, it } from 'vitest';
import { createResponseValidator } from '../support/openapi.js';
import { CONTROL_API_OPENAPI_PATH } from '../support/openapi-document.js';

// The examples of openapi/control-api.yaml, each checked against its own schema. The answers of a
// running platform are checked against the same document by control-api.test.ts; this check reads
// the document only, so this file starts no platform.
type Body = Record<string, unknown>;
const validator = createResponseValidator({ specPath: CONTROL_API_OPENAPI_PATH });

describe('control API against openapi/control-api.yaml', () => {
  it('every example in the document matches its schema (including x-unmatched-routes)', () => {
    const failures: string[] = [];
    let checked = 0;
    const visit = (node: unknown, where: string): void => {
      if (Array.isArray(node)) return node.forEach((item, i) => visit(item, `${where}/${i}`));
      if (typeof node !== 'object' || node === null) return;
      const object = node as Body;
      if (typeof object.schema === 'object' && object.schema !== null) {
        const schema = object.schema as Body;
        const examples: Array<[string, unknown]> = 'example' in object ? [[`${where}/example`, object.example]] : [];
        for (const [name, example] of Object.entries((object.examples ?? {}) as Record<string, { value?: unknown }>)) {
          examples.push([`${where}/examples/${name}`, example.value]);
        }
        for (const [label, value] of examples) {
          checked++;
          failures.push(...validator.validateValue(schema, value, label));
        }
      }
      for (const [key, value] of Object.entries(object)) visit(value, `${where}/${key}`);
    };
    visit(validator.document.paths, '#/paths');
    visit(validator.document['x-unmatched-routes'], '#/x-unmatched-routes');
    expect(failures).toEqual([]);
    expect(checked).toBeGreaterThan(60);
  });
});
