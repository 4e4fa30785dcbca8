/**
 * The Messages capability's public module: what other capabilities (webhooks, the control API)
 * use of it. Cheap to import: the domain functions, the public shapes and the DynamoDB store.
 */
export { DynamoDbMessageStore } from './dynamodb-message-store.js';
export {
  LIST_LIMIT,
  type ListMessagesOptions,
  listMessages,
  type MessageLogPage,
  readAccountMessage,
} from './account-messages.js';
export {
  MESSAGE_STATUSES,
  type MessageRecord,
  type MessageResource,
  type MessageStatus,
  toMessageResource,
} from './message.js';
export type { MessageOutcomes, MessageOutcomeType, MessageStore } from './ports.js';
export { type JsonValue, PermanentError, type ProcessMessage, type ProcessorMessage } from './processor.js';
