import { AsyncLocalStorage } from 'node:async_hooks';
import { setMaxListeners } from 'node:events';
import { NodeHttpHandler } from '@smithy/node-http-handler';

type HandlerOptions = NonNullable<Parameters<NodeHttpHandler['handle']>[1]>;

/**
 * The deadline of the request being handled: SDK calls made inside `withDeadline` are aborted when
 * `signal` fires, so nothing the request started is in flight when the function answers (at
 * `answerAtMs`). Outside it (the worker, the control API, the CLI) calls run on their own timeouts.
 */
const current = new AsyncLocalStorage<{ readonly signal: AbortSignal; readonly answerAtMs: number }>();

/** A request's one signal is shared by all its calls (a batch's undo makes 100): no listener limit. */
function deadlineSignal(ms: number): AbortSignal {
  const signal = AbortSignal.timeout(Math.max(0, ms));
  setMaxListeners(0, signal);
  return signal;
}

/** Margin kept between the end of the undo and the answer (the answer itself, the logs). */
const ANSWER_MARGIN_MS = 100;

/**
 * Runs `work` with every SDK call inside it aborted `reserveMs` before the answer is due in
 * `answerInMs` (the reserve is left for `beforeAnswer`, the undo of writes that failed).
 */
export function withDeadline<T>(answerInMs: number, reserveMs: number, work: () => Promise<T>): Promise<T> {
  return current.run({ signal: deadlineSignal(answerInMs - reserveMs), answerAtMs: Date.now() + answerInMs }, work);
}

/** Runs `work` (undoing writes) with its SDK calls aborted just before the answer is due. */
export function beforeAnswer<T>(work: () => Promise<T>): Promise<T> {
  const deadline = current.getStore();
  if (!deadline) return work();
  const left = deadline.answerAtMs - Date.now() - ANSWER_MARGIN_MS;
  return current.run({ signal: deadlineSignal(left), answerAtMs: deadline.answerAtMs }, work);
}

/** The SDK's HTTP handler with the request's deadline as each attempt's abort signal (an aborted one is not retried). */
export class DeadlineHttpHandler extends NodeHttpHandler {
  override handle(request: Parameters<NodeHttpHandler['handle']>[0], options: HandlerOptions = {}) {
    const abortSignal = options.abortSignal ?? current.getStore()?.signal;
    return super.handle(request, abortSignal ? { ...options, abortSignal } : options);
  }
}
