import type { JsonValue } from '../../contracts/messages.js';

// The contract of the operator's processor (docs/processor.md). It imports nothing, so an
// operator's module pulls nothing else of the platform into the worker's bundle.

/** The message as the processor sees it: the record's fields, not its storage details. */
export interface ProcessorMessage {
  readonly id: string;
  readonly accountId: string;
  readonly keyId: string;
  readonly message: string;
  readonly createdAt: string;
}

export type { JsonValue };

/** Resolves (nothing, or a JSON `result` of at most RESULT_MAX_BYTES) when done; throws to fail the attempt. */
export type ProcessMessage = (
  message: ProcessorMessage,
  context: { readonly attempt: number },
) => Promise<JsonValue | undefined | void> | JsonValue | undefined | void;

/** The largest `result` kept on a record, in bytes of its JSON. */
export const RESULT_MAX_BYTES = 4096;

const PERMANENT = Symbol.for('messages-platform.PermanentError');

/** Fails the message at once: no more attempts, status `failed` with this error's message. */
export class PermanentError extends Error {
  override name = 'PermanentError';
  readonly [PERMANENT] = true;
}

/** By brand, not `instanceof`: locally the processor loads its own copy of this module (tsx). */
export function isPermanentError(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[PERMANENT] === true;
}
