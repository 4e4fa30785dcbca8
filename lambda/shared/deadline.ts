import { AsyncLocalStorage } from 'node:async_hooks';
import { setMaxListeners } from 'node:events';
import { NodeHttpHandler, type NodeHttpHandlerOptions } from '@smithy/node-http-handler';

type HandlerOptions = NonNullable<Parameters<NodeHttpHandler['handle']>[1]>;

interface Deadline {
  /** Aborts the request's work: it ends `reserveMs` before the answer is due. */
  readonly signal: AbortSignal;
  /** When the answer is due (epoch ms), for the undo that runs after the work's deadline. */
  readonly answerAtMs: number;
}

/**
 * The deadline of the request being handled: every SDK call made inside `withDeadline` is aborted
 * when it passes (attempts, their timeouts and the retries' backoff included), so nothing a
 * request path started is still in flight when the function answers. Outside it (the worker, the
 * control API, the CLI) calls run on their own timeouts only.
 */
const current = new AsyncLocalStorage<Deadline>();

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
  const deadline = {
    signal: deadlineSignal(answerInMs - reserveMs),
    answerAtMs: Date.now() + answerInMs,
  };
  return current.run(deadline, work);
}

/**
 * Runs `work` (undoing writes) with its SDK calls aborted just before the answer is due, past the
 * work's own deadline; as is, outside a deadline.
 */
export function beforeAnswer<T>(work: () => Promise<T>): Promise<T> {
  const deadline = current.getStore();
  if (!deadline) return work();
  const left = deadline.answerAtMs - Date.now() - ANSWER_MARGIN_MS;
  return current.run({ signal: deadlineSignal(left), answerAtMs: deadline.answerAtMs }, work);
}

/**
 * The SDK's Node.js HTTP handler, given the current request's deadline as the abort signal of
 * each attempt (a call's own signal, if it has one, wins). An aborted attempt is not retried: the
 * SDK's retry strategies do not take an AbortError for a transient error.
 */
export class DeadlineHttpHandler extends NodeHttpHandler {
  constructor(options: NodeHttpHandlerOptions) {
    super(options);
  }

  override handle(request: Parameters<NodeHttpHandler['handle']>[0], options: HandlerOptions = {}) {
    const abortSignal = options.abortSignal ?? current.getStore()?.signal;
    return super.handle(request, abortSignal ? { ...options, abortSignal } : options);
  }
}
