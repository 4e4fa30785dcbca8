import type { ProcessMessage } from '../../../lambda/messages/processor.js';

/** Bundled into a worker by the infra and bundle tests: its marker proves the alias took this module. */
export const ECHO_MARKER = 'echo-processor-7f3a';

export const processMessage: ProcessMessage = (message, context) => ({
  marker: ECHO_MARKER,
  echoed: message.message,
  attempt: context.attempt,
});
