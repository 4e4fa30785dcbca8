/** The Messages capability's public module, for other capabilities (cheap to import). */
export { DynamoDbMessageStore } from './dynamodb-message-store.js';
export { type ListMessagesOptions, listMessages, readAccountMessage } from './account-messages.js';
export {
  MESSAGE_STATUSES,
  type MessageRecord,
  type MessageResource,
  type MessageStatus,
  toMessageResource,
} from './message.js';
export type { MessageStore } from './ports.js';
export { type JsonValue, PermanentError, type ProcessMessage, type ProcessorMessage } from './processor.js';
