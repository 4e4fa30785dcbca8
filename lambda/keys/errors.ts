// Its own module so that other capabilities can raise it through lambda/keys/index.ts without
// taking in the account service's zod schemas.

export type AccountServiceErrorCode = 'invalid_request' | 'account_not_found' | 'key_not_found';

/** A refusal of the account service, with the HTTP status its API answers. */
export class AccountServiceError extends Error {
  constructor(
    readonly code: AccountServiceErrorCode,
    message: string,
    readonly status: number,
    readonly errors?: ReadonlyArray<{ field: string; message: string }>,
  ) {
    super(message);
    this.name = 'AccountServiceError';
  }
}
