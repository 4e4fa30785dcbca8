/**
 * The OpenAPI documents the tests check answers against (openapi/openapi.yaml, the published
 * contract of the Messages API, and openapi/control-api.yaml), read with every local `$ref`
 * resolved, and the matching of a request to the operation of the document that answers it.
 *
 * The answers themselves are checked by test/support/openapi.ts.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';

/** Default location of the OpenAPI document. */
export const OPENAPI_PATH = fileURLToPath(new URL('../../openapi/openapi.yaml', import.meta.url));
/** The control API's document (accounts, keys, projects, domains). */
export const CONTROL_API_OPENAPI_PATH = fileURLToPath(new URL('../../openapi/control-api.yaml', import.meta.url));

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

export type JsonObject = { [key: string]: unknown };

export interface OpenApiDocument extends JsonObject {
  readonly paths: Record<string, JsonObject>;
  /**
   * Responses to requests that match no operation (an extension of these documents). Optional:
   * without it, any response to an unmatched route is reported as undocumented.
   */
  readonly 'x-unmatched-routes'?: {
    readonly unknownPath: Record<string, JsonObject>;
    readonly unsupportedMethod: Record<string, JsonObject>;
  };
}

/** The documented answers to requests that match no operation (empty when the document declares none). */
export type UnmatchedRoutes = NonNullable<OpenApiDocument['x-unmatched-routes']>;

export type RouteMatch =
  | { kind: 'operation'; label: string; responses: Record<string, JsonObject> } |
  { kind: 'unknown-path'; label: string; responses: Record<string, JsonObject> } |
  { kind: 'unsupported-method'; label: string; responses: Record<string, JsonObject>; allowed: string[] };

interface PathTemplate {
  readonly template: string;
  readonly regex: RegExp;
  readonly literalSegments: number;
  readonly item: JsonObject;
}

// `$ref` siblings that only annotate, so that merging them over the target is equivalent to JSON Schema semantics.
const ANNOTATION_KEYWORDS = new Set(['description', 'summary', 'title', 'example', 'examples', 'deprecated']);

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function resolvePointer(root: unknown, ref: string): unknown {
  if (!ref.startsWith('#/')) throw new Error(`unsupported $ref ${ref}: only local references are resolved`);
  let node: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    const key = decodeURIComponent(raw).replaceAll('~1', '/').replaceAll('~0', '~');
    if (!isObject(node) || !(key in node)) throw new Error(`unresolvable $ref ${ref}`);
    node = node[key];
  }
  return node;
}

/** A copy of `node` with every local `$ref` replaced by its target. */
function dereference(node: unknown, root: unknown, refStack: readonly string[] = []): unknown {
  if (Array.isArray(node)) return node.map((item) => dereference(item, root, refStack));
  if (!isObject(node)) return node;
  const ref = node.$ref;
  if (typeof ref === 'string') {
    if (refStack.includes(ref)) throw new Error(`circular $ref ${[...refStack, ref].join(' -> ')}`);
    const target = dereference(resolvePointer(root, ref), root, [...refStack, ref]);
    const siblings = Object.entries(node).filter(([key]) => key !== '$ref');
    if (siblings.length === 0) return target;
    const resolvedSiblings = Object.fromEntries(siblings.map(([k, v]) => [k, dereference(v, root, refStack)]));
    if (siblings.every(([key]) => ANNOTATION_KEYWORDS.has(key)) && isObject(target)) {
      return { ...target, ...resolvedSiblings };
    }
    return { allOf: [target], ...resolvedSiblings };
  }
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, dereference(v, root, refStack)]));
}

/** The document at `specPath`, every local `$ref` resolved, with its answers to unmatched routes. */
export function loadOpenApiDocument(specPath: string): { document: OpenApiDocument; fallback: UnmatchedRoutes } {
  const raw: unknown = parseYaml(readFileSync(specPath, 'utf8'));
  const document = dereference(raw, raw) as OpenApiDocument;
  if (!isObject(document.paths)) throw new Error(`${specPath}: no paths`);
  const declared = document['x-unmatched-routes'];
  if (declared !== undefined && (!isObject(declared.unknownPath) || !isObject(declared.unsupportedMethod))) {
    throw new Error(`${specPath}: x-unmatched-routes needs both unknownPath and unsupportedMethod`);
  }
  return { document, fallback: declared ?? { unknownPath: {}, unsupportedMethod: {} } };
}

function compilePathTemplate(template: string, item: JsonObject): PathTemplate {
  const segments = template.split('/');
  const pattern = segments
    .map((segment) => {
      if (/^\{[^}]+\}$/.test(segment)) return '[^/]+';
      return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    })
    .join('/');
  return {
    template,
    regex: new RegExp(`^${pattern}$`),
    literalSegments: segments.filter((s) => !s.startsWith('{')).length,
    item,
  };
}

/** Every documented response: those of each operation, then those of the unmatched routes. */
export function documentedResponses(document: OpenApiDocument, fallback: UnmatchedRoutes): unknown[] {
  return [
    ...Object.values(document.paths).flatMap((item) =>
      HTTP_METHODS.flatMap((m) => {
        const op = item[m];
        return isObject(op) && isObject(op.responses) ? Object.values(op.responses) : [];
      }),
    ),
    ...Object.values(fallback.unknownPath),
    ...Object.values(fallback.unsupportedMethod),
  ];
}

/** The operation of `document` that answers a request (by method and normalised path), or the unmatched route it falls in. */
export function routeMatcher(
  document: OpenApiDocument,
  fallback: UnmatchedRoutes,
): (method: string, path: string) => RouteMatch {
  const templates = Object.entries(document.paths)
    .map(([template, item]) => compilePathTemplate(template, item))
    // Literal paths win over templated ones (OpenAPI path matching rule).
    .sort((a, b) => b.literalSegments - a.literalSegments);

  return (method, path) => {
    const upper = method.toUpperCase();
    const template = templates.find((t) => t.regex.test(path));
    if (!template) {
      return { kind: 'unknown-path', label: `${upper} ${path} (no documented path)`, responses: fallback.unknownPath };
    }
    const allowed = HTTP_METHODS.filter((m) => isObject(template.item[m])).map((m) => m.toUpperCase());
    const operation = template.item[method.toLowerCase()];
    if (!isObject(operation) || !isObject(operation.responses)) {
      return {
        kind: 'unsupported-method',
        label: `${upper} ${template.template} (method not documented)`,
        responses: fallback.unsupportedMethod,
        allowed,
      };
    }
    const id = typeof operation.operationId === 'string' ? ` (${operation.operationId})` : '';
    return {
      kind: 'operation',
      label: `${upper} ${template.template}${id}`,
      responses: operation.responses as Record<string, JsonObject>,
    };
  };
}
