import { PROBLEM_TYPE_BASE } from '../../contracts/gateway-responses.js';

/** Stable machine codes of our RFC 9457 problem documents. */
export type ProblemCode =
  | 'invalid_json' |
  'invalid_encoding' |
  'missing_field' |
  'invalid_field' |
  'unknown_field' |
  'unsupported_media_type' |
  'invalid_idempotency_key' |
  'payload_too_large' |
  'invalid_api_key' |
  'rate_limited' |
  'key_banned' |
  'not_found' |
  'method_not_allowed' |
  'idempotency_conflict' |
  'idempotency_in_progress' |
  'service_unavailable' |
  'internal_error';

export interface FieldError {
  readonly field: string;
  readonly message: string;
}

export interface ProblemInit {
  readonly status: number;
  readonly code: ProblemCode;
  readonly title: string;
  readonly detail: string;
  readonly errors?: readonly FieldError[];
  readonly headers?: Readonly<Record<string, string>>;
  /** Extension members, e.g. `window` on rate_limited. */
  readonly extensions?: Readonly<Record<string, unknown>>;
}

/** An error that is answered as an RFC 9457 problem document. */
export class HttpProblem extends Error {
  readonly status: number;
  readonly code: ProblemCode;
  readonly title: string;
  readonly detail: string;
  readonly errors: readonly FieldError[] | undefined;
  readonly headers: Readonly<Record<string, string>>;
  readonly extensions: Readonly<Record<string, unknown>>;

  constructor(init: ProblemInit) {
    super(init.detail);
    this.name = 'HttpProblem';
    this.status = init.status;
    this.code = init.code;
    this.title = init.title;
    this.detail = init.detail;
    this.errors = init.errors;
    this.headers = init.headers ?? {};
    this.extensions = init.extensions ?? {};
  }

  toBody(requestId: string): Record<string, unknown> {
    return {
      type: `${PROBLEM_TYPE_BASE}${this.code}`,
      title: this.title,
      status: this.status,
      detail: this.detail,
      code: this.code,
      requestId,
      ...(this.errors ? { errors: this.errors } : {}),
      ...this.extensions,
    };
  }
}

export const problems = {
  badRequest: (code: ProblemCode, detail: string, errors?: readonly FieldError[]) =>
    new HttpProblem({ status: 400, code, title: 'Bad Request', detail, ...(errors ? { errors } : {}) }),
  unauthorized: (detail: string) =>
    new HttpProblem({
      status: 401,
      code: 'invalid_api_key',
      title: 'Unauthorized',
      detail,
      headers: { 'WWW-Authenticate': 'Bearer' },
    }),
  notFound: (detail = 'No such resource.') =>
    new HttpProblem({ status: 404, code: 'not_found', title: 'Not Found', detail }),
  methodNotAllowed: (allow: readonly string[]) =>
    new HttpProblem({
      status: 405,
      code: 'method_not_allowed',
      title: 'Method Not Allowed',
      detail: `Allowed methods: ${allow.join(', ')}.`,
      headers: { Allow: allow.join(', ') },
    }),
  payloadTooLarge: (maxBytes: number) =>
    new HttpProblem({
      status: 413,
      code: 'payload_too_large',
      title: 'Payload Too Large',
      detail: `The request body must be at most ${maxBytes} bytes.`,
    }),
  conflict: (code: 'idempotency_conflict' | 'idempotency_in_progress', detail: string) =>
    new HttpProblem({ status: 409, code, title: 'Conflict', detail }),
  unavailable: (detail: string, retryAfterSeconds = 1) =>
    new HttpProblem({
      status: 503,
      code: 'service_unavailable',
      title: 'Service Unavailable',
      detail,
      headers: { 'Retry-After': String(retryAfterSeconds) },
    }),
};
