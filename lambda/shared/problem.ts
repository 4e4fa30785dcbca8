import { STATUS_CODES } from 'node:http';
import { PROBLEM_TYPE_BASE } from '../../contracts/gateway-responses.js';
import type { components as ControlApi } from '../../contracts/openapi/control-api.js';
import type { components as MessagesApi } from '../../contracts/openapi/messages-api.js';

/** Stable machine codes of our RFC 9457 problem documents: those of the two APIs' specifications, and `unauthorized`. */
export type ProblemCode =
  | MessagesApi['schemas']['ProblemCode'] |
  ControlApi['schemas']['ProblemCode'] |
  'unauthorized';

export interface FieldError {
  readonly field: string;
  readonly message: string;
}

export interface ProblemInit {
  readonly status: number;
  readonly code: ProblemCode;
  /** @default the status's reason phrase (node:http STATUS_CODES) */
  readonly title?: string;
  readonly detail: string;
  readonly errors?: readonly FieldError[];
  readonly headers?: Readonly<Record<string, string>>;
  /** Extension members, e.g. `window` on rate_limited. */
  readonly extensions?: Readonly<Record<string, unknown>>;
}

/**
 * The one error type of the platform's HTTP APIs (the Messages API and the control API): every
 * refusal a capability decides is an HttpProblem, answered as an RFC 9457 problem document by
 * problemResult (lambda/shared/http.ts).
 */
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
    this.title = init.title ?? STATUS_CODES[init.status] ?? 'Error';
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

/** A refusal of a capability's service: `throw refuse('account_not_found', 'No account acct_1.', 404)`. */
export const refuse = (code: ProblemCode, detail: string, status: number, errors?: readonly FieldError[]) =>
  new HttpProblem({ status, code, detail, ...(errors ? { errors } : {}) });

export const problems = {
  badRequest: (code: ProblemCode, detail: string, errors?: readonly FieldError[]) => refuse(code, detail, 400, errors),
  unauthorized: (detail: string) =>
    new HttpProblem({ status: 401, code: 'invalid_api_key', detail, headers: { 'WWW-Authenticate': 'Bearer' } }),
  notFound: (detail = 'No such resource.') => new HttpProblem({ status: 404, code: 'not_found', detail }),
  methodNotAllowed: (allow: readonly string[]) =>
    new HttpProblem({
      status: 405,
      code: 'method_not_allowed',
      detail: `Allowed methods: ${allow.join(', ')}.`,
      headers: { Allow: allow.join(', ') },
    }),
  payloadTooLarge: (maxBytes: number) =>
    new HttpProblem({ status: 413, code: 'payload_too_large', detail: `The request body must be at most ${maxBytes} bytes.` }),
  unavailable: (detail: string, retryAfterSeconds = 1) =>
    new HttpProblem({ status: 503, code: 'service_unavailable', detail, headers: { 'Retry-After': String(retryAfterSeconds) } }),
};
