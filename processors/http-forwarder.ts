import { PermanentError, type ProcessMessage } from '../lambda/messages/processor.js';

/**
 * An example processor: POSTs each message as JSON to FORWARD_URL (FORWARD_TIMEOUT_MS, default
 * 5000; FORWARD_AUTHORIZATION as the Authorization header), with its id as Idempotency-Key. A 2xx is
 * done; a 4xx other than 408 and 429 fails the message at once; anything else fails this attempt.
 * docs/processor.md.
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
