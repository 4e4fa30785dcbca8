import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import {
  EDGE_VALUE,
  functionSource,
  KVS_ID_PLACEHOLDER,
  KVS_LIMITS,
  kvsEntryBytes,
  MemoryKeyValueStore,
} from '../../edge/cloudfront-function.js';
import { KVS_ID, PREFIX } from './viewer-request-fixtures.js';

// edge/cloudfront-function.ts: the deployed source of edge/viewer-request.js against the limits of the
// cloudfront-js-2.0 runtime, EDGE_VALUE, and the in-memory KeyValueStore the tests run the function against.

describe('CloudFront Functions limits (runtime cloudfront-js-2.0)', () => {
  const deployed = functionSource(KVS_ID);

  it('is under the 10 KB function size quota (and small)', () => {
    expect(Buffer.byteLength(deployed, 'utf8')).toBeLessThan(10_240);
    expect(Buffer.byteLength(deployed, 'utf8')).toBeLessThan(4_096);
  });

  it('is the module shape the runtime expects', () => {
    expect(deployed.startsWith('import cf from \'cloudfront\';\n')).toBe(true);
    expect(deployed).toMatch(/^async function handler\(event\) \{$/m);
    expect(deployed).toContain(`const kvsId = '${KVS_ID}';`);
    expect(deployed).toContain('const kvsHandle = cf.kvs(kvsId);');
    expect(deployed).not.toContain(KVS_ID_PLACEHOLDER);
    expect(deployed).not.toContain('require(');
    expect(deployed).not.toMatch(/^export /m);
  });

  it('substitutes only ids that fit in the quoted literal (a CDK token string does)', () => {
    expect(functionSource('${Token[TOKEN.123]}')).toContain('const kvsId = \'${Token[TOKEN.123]}\';');
    expect(() => functionSource('x\'; evil(); \'')).toThrow(/Unusable/);
    expect(() => functionSource('')).toThrow(/Unusable/);
  });

  it('uses only syntax the runtime 2.0 documentation lists', () => {
    expect(unsupportedSyntax(deployed)).toEqual([]);
  });

  it('the syntax check does catch what the runtime lacks', () => {
    const sample = [
      'import cf from \'cloudfront\';',
      'import x from \'other\';',
      'class A {}',
      'const { a } = cf; const [b] = [1];',
      'function f(p = 1) { return [...p]; }',
      'for (const v of []) {}',
      'const o = cf?.kvs ?? 1;',
      'const g = async () => 1;',
      'function* gen() {}',
      'const r = /(?<name>x)/u;',
      'const t = tag`x`;',
      'require(\'fs\');',
      'export default 1;',
      'async function handler(event) { return event; }',
    ].join('\n');
    expect(unsupportedSyntax(sample)).toEqual(expect.arrayContaining([
      expect.stringMatching(/^import of "other"/),
      expect.stringMatching(/^ClassDeclaration/),
      expect.stringMatching(/^ObjectBindingPattern/),
      expect.stringMatching(/^ArrayBindingPattern/),
      expect.stringMatching(/^default parameter/),
      expect.stringMatching(/^SpreadElement/),
      expect.stringMatching(/^ForOfStatement/),
      expect.stringMatching(/^optional chaining/),
      expect.stringMatching(/^QuestionQuestionToken/),
      expect.stringMatching(/^async closure/),
      expect.stringMatching(/^generator/),
      expect.stringMatching(/^regular expression/),
      expect.stringMatching(/^TaggedTemplateExpression/),
      expect.stringMatching(/^identifier require/),
      expect.stringMatching(/^ExportAssignment/),
    ]));
  });
});

describe('EDGE_VALUE', () => {
  it('produces the exact KeyValueStore values', () => {
    expect(EDGE_VALUE.serve(PREFIX)).toBe(`{"s":"${PREFIX}"}`);
    expect(EDGE_VALUE.redirect('www.example.com')).toBe('{"r":"www.example.com","c":301}');
    expect(EDGE_VALUE.redirect('www.example.com', 308)).toBe('{"r":"www.example.com","c":308}');
    expect(EDGE_VALUE.removed()).toBe('{"x":1}');
  });

  it('refuses values the function would reject', () => {
    expect(() => EDGE_VALUE.serve('projects/../x')).toThrow(/prefix/);
    expect(() => EDGE_VALUE.serve('/projects/p')).toThrow(/prefix/);
    expect(() => EDGE_VALUE.redirect('Example.com')).toThrow(/host/);
    expect(() => EDGE_VALUE.redirect('example.com/path')).toThrow(/host/);
    expect(() => EDGE_VALUE.redirect('example.com', 303 as never)).toThrow(/status/);
  });
});

describe('MemoryKeyValueStore', () => {
  it('reads like the runtime handle: string by default, json, bytes; a missing key rejects', async () => {
    const store = new MemoryKeyValueStore({ k: '{"s":"a"}' });
    expect(await store.get('k')).toBe('{"s":"a"}');
    expect(await store.get('k', { format: 'json' })).toEqual({ s: 'a' });
    expect(Buffer.from(await store.get('k', { format: 'bytes' }) as Uint8Array).toString()).toBe('{"s":"a"}');
    expect(store.delete('k')).toBe(true);
    await expect(store.get('k')).rejects.toThrow(/not found/i);
  });

  it('enforces the KeyValueStore key and value sizes', () => {
    const store = new MemoryKeyValueStore();
    expect(() => store.put('k'.repeat(513), 'v')).toThrow(/key/);
    expect(() => store.put('k', 'v'.repeat(1025))).toThrow(/value/);
    store.put('k'.repeat(512), 'v'.repeat(1024));
  });

  it('sizes itself as UTF-8 bytes of keys plus values: puts add, overwrites replace, deletes give back', () => {
    const store = new MemoryKeyValueStore();
    store.put('www.example.com', '{"x":1}');
    expect(store.sizeBytes).toBe(15 + 7);
    store.put('www.example.com', '{"s":"projects/p/deploys/d"}');
    expect(store.sizeBytes).toBe(15 + 28);
    store.put('xn--bcher-kva.example', '{"r":"é.example"}');
    expect(store.sizeBytes).toBe(15 + 28 + 21 + 18);
    expect(kvsEntryBytes('é', 'ü')).toBe(4);
    expect(store.delete('www.example.com')).toBe(true);
    expect(store.sizeBytes).toBe(21 + 18);
    expect(store.itemCount).toBe(1);
    expect(store.delete('www.example.com')).toBe(false);
    expect(store.sizeBytes).toBe(21 + 18);
  });

  it('refuses a put past the store size (ServiceQuotaExceededException) and keeps what it had', () => {
    expect(KVS_LIMITS.storeBytes).toBe(5_000_000);
    const store = new MemoryKeyValueStore({}, 30);
    store.put('a.example', '{"x":1}');
    let error: unknown;
    try {
      store.put('b.example', '{"x":1}');
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({ name: 'ServiceQuotaExceededException' });
    expect(store.has('b.example')).toBe(false);
    expect(store.sizeBytes).toBe(16);
    store.put('a.example', '{"x":2}');
    expect(store.value('a.example')).toBe('{"x":2}');
  });

  it('versions itself like the real store: every write moves the ETag, a write with a stale one is refused', () => {
    const store = new MemoryKeyValueStore();
    const first = store.etag;
    store.put('a.example', '{"x":1}', first);
    const second = store.etag;
    expect(second).not.toBe(first);
    expect(() => store.delete('a.example', first)).toThrow(expect.objectContaining({ name: 'ConflictException' }));
    expect(() => store.put('a.example', '{"x":2}', first)).toThrow(expect.objectContaining({ name: 'ConflictException' }));
    expect(store.value('a.example')).toBe('{"x":1}');
    expect(store.delete('a.example', second)).toBe(true);
    expect(store.etag).not.toBe(second);
  });
});

/**
 * Constructs the cloudfront-js-2.0 runtime does not list (functions-javascript-runtime-20):
 * supported are ES 5.1, const/let, async/await (async closures are not), template literals,
 * arrow functions, rest parameters and `**`. Returns one line per offending construct.
 */
function unsupportedSyntax(code: string): string[] {
  const file = ts.createSourceFile('viewer-request.js', code, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
  const found: string[] = [];
  const where = (node: ts.Node) => `line ${file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1}`;
  const flag = (what: string, node: ts.Node) => found.push(`${what} at ${where(node)}`);
  const banned = new Set([
    ts.SyntaxKind.ClassDeclaration, ts.SyntaxKind.ClassExpression, ts.SyntaxKind.ObjectBindingPattern,
    ts.SyntaxKind.ArrayBindingPattern, ts.SyntaxKind.SpreadElement, ts.SyntaxKind.SpreadAssignment,
    ts.SyntaxKind.ForOfStatement, ts.SyntaxKind.YieldExpression, ts.SyntaxKind.TaggedTemplateExpression,
    ts.SyntaxKind.QuestionQuestionToken, ts.SyntaxKind.QuestionQuestionEqualsToken, ts.SyntaxKind.BarBarEqualsToken,
    ts.SyntaxKind.AmpersandAmpersandEqualsToken, ts.SyntaxKind.BigIntLiteral, ts.SyntaxKind.ExportAssignment,
    ts.SyntaxKind.ExportDeclaration, ts.SyntaxKind.Decorator, ts.SyntaxKind.MetaProperty,
  ]);
  const bannedIdentifiers = new Set(['require', 'process', 'eval', 'Function', 'setTimeout', 'setInterval', 'fetch', 'module', 'exports']);
  const isAsync = (node: ts.Node) =>
    ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.AsyncKeyword);
  const visit = (node: ts.Node): void => {
    if (banned.has(node.kind)) flag(ts.SyntaxKind[node.kind], node);
    if (ts.isImportDeclaration(node)) {
      const from = (node.moduleSpecifier as ts.StringLiteral).text;
      const defaultCf = node.importClause?.name?.text === 'cf' && !node.importClause.namedBindings;
      if (from !== 'cloudfront' || !defaultCf || node !== file.statements[0]) flag(`import of "${from}"`, node);
    }
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) flag('dynamic import', node);
    const chained = ts.isPropertyAccessExpression(node) || ts.isElementAccessExpression(node) ||
      ts.isCallExpression(node);
    if (chained && node.questionDotToken) flag('optional chaining', node);
    if (ts.isParameter(node) && node.initializer) flag('default parameter', node);
    if (ts.isFunctionLike(node) && 'asteriskToken' in node && node.asteriskToken) flag('generator', node);
    if (isAsync(node) && !(ts.isFunctionDeclaration(node) && node.parent === file)) flag('async closure', node);
    if (ts.isRegularExpressionLiteral(node)) {
      const flags = node.text.slice(node.text.lastIndexOf('/') + 1);
      if (/[^gim]/.test(flags) || /\(\?<[=!]?|\\p\{|\\k</.test(node.text)) flag('regular expression beyond ES5', node);
    }
    if (ts.isNumericLiteral(node) && node.getText(file).includes('_')) flag('numeric separator', node);
    const parent = node.parent as ts.Node | undefined;
    const hasName = parent && (ts.isPropertyAccessExpression(parent) || ts.isPropertyAssignment(parent));
    const member = hasName ? parent : undefined;
    const isMemberName = member?.name === node;
    if (ts.isIdentifier(node) && bannedIdentifiers.has(node.text) && !isMemberName) {
      flag(`identifier ${node.text}`, node);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}
