import { PermanentError, type ProcessMessage } from '../lambda/messages/processor.js';

/**
 * An example processor: POSTs each message as JSON to the operator's URL.
 *
 * Environment (set on the worker through the construct's `processorEnvironment`, or locally in the
 * shell of `npm start`):
 * - FORWARD_URL (required): where to POST;
 * - FORWARD_TIMEOUT_MS: how long one attempt may take (default 5000);
 * - FORWARD_AUTHORIZATION: sent as the Authorization header, if set.
 *
 * A 2xx is done (the record keeps `{status}` as its result); a 4xx other than 408 and 429 fails the
 * message at once (the receiver refused it: resending the same body will not help); a 5xx, 408,
 * 429, a timeout or a network error fails this attempt, and the platform retries it with backoff.
 * The message id goes along as Idempotency-Key: delivery is at least once.
 */
export const processMessage: ProcessMessage = async (message, context) => {
  const url = process.env.FORWARD_URL;
  if (!url) throw new Error('FORWARD_URL is not set');
  const timeoutMs = Number(process.env.FORWARD_TIMEOUT_MS ?? 5000);
  const authorization = process.env.FORWARD_AUTHORIZATION;
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        'Idempotency-Key': message.id,
        ...(authorization ? { Authorization: authorization } : {}),
      },
      body: JSON.stringify({ ...message, attempt: context.attempt }),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    const name = (error as Error).name;
    if (name === 'TimeoutError') throw new Error(`no answer from the forward URL within ${timeoutMs} ms`);
    throw new Error(`the forward URL could not be reached (${(error as Error).message})`);
  }
  // The body is not kept: drain it so the connection can be reused.
  await response.body?.cancel();
  if (response.ok) return { status: response.status };
  const refusal = `the forward URL answered ${response.status}`;
  if (response.status >= 400 && response.status < 500 && response.status !== 408 && response.status !== 429) {
    throw new PermanentError(refusal);
  }
  throw new Error(refusal);
};
