/**
 * Checks real HTTP responses against an OpenAPI document: by default openapi/openapi.yaml, the
 * published contract of the Messages API; with `specPath`, another one such as
 * openapi/control-api.yaml.
 *
 * Integration tests call `assertResponseMatchesSpec(...)` (or `validator.validate(...)`) on every
 * response they receive from the local platform. The check is strict where the contract is
 * (documented status per operation, media type, closed object schemas, required headers, header
 * value formats) and lenient where it is not (extra undocumented headers, header-name case, media-type
 * parameters such as `charset`).
 *
 * The documents are read, and requests matched to their operations, by test/support/openapi-document.ts.
 */
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsImport from 'ajv-formats';
import {
  documentedResponses,
  isObject,
  type JsonObject,
  loadOpenApiDocument,
  OPENAPI_PATH,
  type OpenApiDocument,
  routeMatcher,
} from './openapi-document.js';

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Header values as a test may hold them: a fetch `Headers`, or a plain record (any name case). */
export type HeaderInput = Headers | Readonly<Record<string, string | readonly string[] | number | undefined>>;

/** One response as observed by a test. */
export interface ObservedResponse {
  /** HTTP method of the request, any case. */
  readonly method: string;
  /** Concrete request path (e.g. `/messages/msg_01…`), or a full URL; a query string is ignored. */
  readonly path: string;
  readonly status: number;
  readonly headers: HeaderInput;
  /** Parsed JSON body, or `undefined` when the response had no body. */
  readonly body?: unknown;
}

export interface ResponseValidatorOptions {
  /** Path of the OpenAPI document. @default OPENAPI_PATH */
  readonly specPath?: string;
  /** Prefix to strip from request paths before matching, e.g. `/v1` for the API Gateway stage. @default '' */
  readonly basePath?: string;
}

export interface ResponseValidator {
  /** The OpenAPI document with every local `$ref` resolved. */
  readonly document: OpenApiDocument;
  /** Path of the document, relative to the repository root when inside it (for messages). */
  readonly specPath: string;
  /** Every way `response` departs from the document, as human-readable sentences; empty when it conforms. */
  validate(response: ObservedResponse): string[];
  /** Violations of `value` against a schema of `document` (used to check the document's own examples). */
  validateValue(schema: JsonObject, value: unknown, label?: string): string[];
}

// Keywords of the OpenAPI 3.1 schema dialect that are annotations for validation purposes.
const OPENAPI_SCHEMA_KEYWORDS = ['example', 'discriminator', 'xml', 'externalDocs'];

function headerLookup(headers: HeaderInput): (name: string) => string | undefined {
  if (typeof Headers !== 'undefined' && headers instanceof Headers) {
    return (name) => headers.get(name) ?? undefined;
  }
  const lowered = new Map<string, string>();
  for (const [key, value] of Object.entries(headers as Record<string, unknown>)) {
    if (value === undefined) continue;
    lowered.set(key.toLowerCase(), Array.isArray(value) ? value.join(', ') : String(value));
  }
  return (name) => lowered.get(name.toLowerCase());
}

/** Header strings converted to the schema's type, so that `"60"` can be checked as an integer. */
function coerceHeader(value: string, schema: JsonObject): unknown {
  const trimmed = value.trim();
  switch (schema.type) {
    case 'integer':
      return /^-?[0-9]+$/.test(trimmed) ? Number(trimmed) : value;
    case 'number':
      return trimmed !== '' && Number.isFinite(Number(trimmed)) ? Number(trimmed) : value;
    case 'boolean':
      return trimmed === 'true' ? true : trimmed === 'false' ? false : value;
    default:
      return value;
  }
}

function mediaTypeOf(contentType: string): string {
  return (contentType.split(';')[0] ?? '').trim().toLowerCase();
}

function mediaTypeMatches(actual: string, documented: string): boolean {
  const doc = documented.toLowerCase();
  if (doc === actual || doc === '*/*') return true;
  return doc.endsWith('/*') && actual.startsWith(doc.slice(0, -1));
}

function formatAjvError(where: string, error: ErrorObject): string {
  const at = `${where}${error.instancePath}`;
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'additionalProperties':
      return `${at} has a property not in the contract: "${String(params.additionalProperty)}"`;
    case 'required':
      return `${at} is missing the required property "${String(params.missingProperty)}"`;
    case 'enum':
      return `${at} must be one of ${JSON.stringify(params.allowedValues)}`;
    case 'const':
      return `${at} must be ${JSON.stringify(params.allowedValue)}`;
    default:
      return `${at} ${error.message ?? 'is invalid'}`;
  }
}

function describe(value: unknown): string {
  const text = JSON.stringify(value);
  return text === undefined ? String(value) : text.length > 120 ? `${text.slice(0, 117)}...` : text;
}

export function createResponseValidator(options: ResponseValidatorOptions = {}): ResponseValidator {
  const specPath = options.specPath ?? OPENAPI_PATH;
  const basePath = (options.basePath ?? '').replace(/\/+$/, '');
  const { document, fallback } = loadOpenApiDocument(specPath);

  const ajv = new Ajv2020({ allErrors: true, strict: true, strictTypes: false, strictRequired: false });
  (addFormatsImport as unknown as (a: Ajv2020) => Ajv2020)(ajv);
  ajv.addVocabulary(OPENAPI_SCHEMA_KEYWORDS);
  const compiled = new WeakMap<JsonObject, ValidateFunction>();
  const compile = (schema: JsonObject): ValidateFunction => {
    let fn = compiled.get(schema);
    if (!fn) {
      fn = ajv.compile(schema);
      compiled.set(schema, fn);
    }
    return fn;
  };
  const validateValue = (schema: JsonObject, value: unknown, label = 'value'): string[] => {
    const fn = compile(schema);
    return fn(value) ? [] : (fn.errors ?? []).map((error) => formatAjvError(label, error));
  };

  // Compile every documented schema now, so that a broken document fails at creation, not mid-test.
  for (const response of documentedResponses(document, fallback)) {
    if (!isObject(response)) continue;
    for (const media of Object.values(isObject(response.content) ? response.content : {})) {
      if (isObject(media) && isObject(media.schema)) compile(media.schema);
    }
    for (const header of Object.values(isObject(response.headers) ? response.headers : {})) {
      if (isObject(header) && isObject(header.schema)) compile(header.schema);
    }
  }

  const match = routeMatcher(document, fallback);

  const normalisePath = (path: string): string => {
    let p = /^[a-z][a-z0-9+.-]*:\/\//i.test(path) ? new URL(path).pathname : path;
    p = p.split(/[?#]/)[0] ?? '';
    if (basePath && (p === basePath || p.startsWith(`${basePath}/`))) p = p.slice(basePath.length) || '/';
    return p;
  };

  const validate = (response: ObservedResponse): string[] => {
    const violations: string[] = [];
    const path = normalisePath(response.path);
    const route = match(response.method, path);
    const statusKey = String(response.status);
    const documented = Object.keys(route.responses);
    const spec =
      route.responses[statusKey] ?? route.responses[`${statusKey[0]}XX`] ?? route.responses.default ?? undefined;
    if (!isObject(spec)) {
      return [`status ${response.status} is not documented for ${route.label}; documented: ${documented.join(', ')}`];
    }
    const where = `${route.label} -> ${response.status}`;
    const header = headerLookup(response.headers);

    // Body and media type.
    const content = isObject(spec.content) ? spec.content : {};
    const mediaTypes = Object.keys(content);
    const hasBody = response.body !== undefined && response.body !== '';
    let mediaSchema: JsonObject | undefined;
    if (mediaTypes.length === 0) {
      if (hasBody) violations.push(`${where}: documents no body, but got ${describe(response.body)}`);
    } else {
      const contentType = header('content-type');
      const actual = contentType === undefined ? undefined : mediaTypeOf(contentType);
      const matched = actual === undefined ? undefined : mediaTypes.find((m) => mediaTypeMatches(actual, m));
      if (contentType === undefined) {
        violations.push(`${where}: missing Content-Type (documented: ${mediaTypes.join(', ')})`);
      } else if (matched === undefined) {
        violations.push(
          `${where}: Content-Type "${contentType}" is not documented (expected ${mediaTypes.join(', ')})`,
        );
      }
      // With one documented media type, check the body against it even if the Content-Type was wrong.
      const chosen = matched ?? (mediaTypes.length === 1 ? mediaTypes[0] : undefined);
      const media = chosen === undefined ? undefined : content[chosen];
      mediaSchema = isObject(media) && isObject(media.schema) ? media.schema : undefined;
      if (!hasBody) {
        violations.push(`${where}: no body, expected ${mediaTypes.join(' or ')}`);
      } else if (mediaSchema) {
        violations.push(...validateValue(mediaSchema, response.body, `${where}: body`));
      }
    }

    // Headers: each documented one that is required must be present; any present one must match its schema.
    const documentedHeaders = isObject(spec.headers) ? spec.headers : {};
    const headerValues: Record<string, unknown> = {};
    for (const [name, definition] of Object.entries(documentedHeaders)) {
      if (name.toLowerCase() === 'content-type' || !isObject(definition)) continue; // ignored by OpenAPI
      const value = header(name);
      if (value === undefined) {
        if (definition.required === true) violations.push(`${where}: missing required header ${name}`);
        continue;
      }
      if (!isObject(definition.schema)) continue;
      const coerced = coerceHeader(value, definition.schema);
      headerValues[name.toLowerCase()] = coerced;
      for (const problem of validateValue(definition.schema, coerced, `header ${name}`)) {
        violations.push(`${where}: ${problem} (got "${value}")`);
      }
    }

    // Cross-field rules the document states in prose.
    const body = isObject(response.body) ? response.body : undefined;
    if (body && mediaTypes.some((m) => m.endsWith('problem+json'))) {
      if (typeof body.status === 'number' && body.status !== response.status) {
        violations.push(`${where}: problem "status" ${body.status} differs from the HTTP status`);
      }
      const requestId = header('x-request-id');
      if (typeof body.requestId === 'string' && requestId !== undefined && body.requestId !== requestId) {
        violations.push(`${where}: problem "requestId" ${body.requestId} differs from X-Request-Id ${requestId}`);
      }
      const retryAfter = headerValues['retry-after'];
      if (typeof body.retryAfter === 'number' && typeof retryAfter === 'number' && body.retryAfter !== retryAfter) {
        violations.push(`${where}: problem "retryAfter" ${body.retryAfter} differs from Retry-After ${retryAfter}`);
      }
    }
    const location = header('location');
    if (body && typeof body.id === 'string' && location !== undefined && 'location' in headerValues) {
      if (!location.endsWith(`/messages/${body.id}`)) {
        violations.push(`${where}: Location "${location}" does not point at /messages/${body.id}`);
      }
    }
    if (route.kind === 'unsupported-method') {
      const allow = header('allow');
      if (allow !== undefined) {
        const listed = allow.split(',').map((m) => m.trim().toUpperCase());
        const missing = route.allowed.filter((m) => !listed.includes(m));
        if (missing.length > 0) violations.push(`${where}: Allow "${allow}" does not list ${missing.join(', ')}`);
      }
    }
    return violations;
  };

  const shownPath = relative(REPO_ROOT, specPath);
  return {
    document,
    specPath: shownPath.startsWith('..') ? specPath : shownPath,
    validate,
    validateValue,
  };
}

let sharedValidator: ResponseValidator | undefined;

/** A validator of the default document, created on first use and shared by the calls that pass none. */
export function sharedResponseValidator(): ResponseValidator {
  if (!sharedValidator) sharedValidator = createResponseValidator();
  return sharedValidator;
}

/** Throws an Error listing every violation when `response` does not match the OpenAPI document. */
export function assertResponseMatchesSpec(
  response: ObservedResponse,
  validator: ResponseValidator = sharedResponseValidator(),
): void {
  const violations = validator.validate(response);
  if (violations.length > 0) {
    throw new Error(
      `${response.method.toUpperCase()} ${response.path} -> ${response.status} does not match ${validator.specPath}:\n` +
      violations.map((v) => `  - ${v}`).join('\n'),
    );
  }
}

/**
 * Reads a fetch `Response` into an `ObservedResponse` (JSON bodies parsed; a body that is not valid
 * JSON is kept as its text so that the schema check reports it). Consumes the response body.
 */
export async function readResponse(
  method: string,
  path: string,
  res: Response,
): Promise<ObservedResponse & { readonly text: string }> {
  const text = await res.text();
  let body: unknown;
  if (text !== '') {
    const isJson = /[/+]json\b/i.test(res.headers.get('content-type') ?? '');
    try {
      body = isJson ? JSON.parse(text) : text;
    } catch {
      body = text;
    }
  }
  return { method, path, status: res.status, headers: res.headers, body, text };
}
