import type { ProcessMessage } from '../lambda/messages/processor.js';

/** The default processor: accepts every message (its record becomes `processed`, no result). */
export const processMessage: ProcessMessage = () => undefined;
