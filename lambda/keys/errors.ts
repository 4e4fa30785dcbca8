// Its own module so that other capabilities can raise it through lambda/keys/index.ts without
// taking in the control plane's zod schemas.

export type ControlPlaneErrorCode = 'invalid_request' | 'account_not_found' | 'key_not_found';

/** A refusal of the control plane, with the HTTP status its API answers. */
export class ControlPlaneError extends Error {
  constructor(
    readonly code: ControlPlaneErrorCode,
    message: string,
    readonly status: number,
    readonly errors?: ReadonlyArray<{ field: string; message: string }>,
  ) {
    super(message);
    this.name = 'ControlPlaneError';
  }
}
