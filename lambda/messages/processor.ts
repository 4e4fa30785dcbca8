import type { JsonValue } from '../../contracts/messages.js';

/**
 * The operator's processor: the contract of the module named in the platform config
 * (`processor`, e.g. `processors/default.ts`) and bundled into the queue worker. It imports
 * nothing, so an operator's module pulls nothing else of the platform into the bundle.
 * How to write one: docs/processor.md.
 */

/** The message as the processor sees it: the record's fields, not its storage details. */
export interface ProcessorMessage {
  readonly id: string;
  readonly accountId: string;
  readonly keyId: string;
  readonly message: string;
  readonly createdAt: string;
}

export interface ProcessorContext {
  /** 1 on the first attempt; attempts that ended (failed or done) are counted on the record. */
  readonly attempt: number;
}

export type { JsonValue };

/**
 * Does the work a message stands for. Resolve (with nothing, or a JSON value of at most
 * RESULT_MAX_BYTES serialized, kept on the record as `result`) when it is done; throw to fail this
 * attempt (it is retried with backoff); throw a PermanentError to fail the message at once.
 */
export type ProcessMessage = (
  message: ProcessorMessage,
  context: ProcessorContext,
) => Promise<JsonValue | undefined | void> | JsonValue | undefined | void;

/** The largest `result` kept on a record, in bytes of its JSON. */
export const RESULT_MAX_BYTES = 4096;

const PERMANENT = Symbol.for('messages-platform.PermanentError');

/** Fails the message at once: no more attempts, status `failed` with this error's message. */
export class PermanentError extends Error {
  override name = 'PermanentError';
  readonly [PERMANENT] = true;
}

/**
 * By brand rather than `instanceof`: locally the processor file is loaded on its own (tsx), and a
 * second copy of this module must still be recognised.
 */
export function isPermanentError(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[PERMANENT] === true;
}
