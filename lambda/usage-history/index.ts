/**
 * The public module of the usage-history capability (accepted and refused requests per account,
 * key and UTC day): what the messages worker uses of it. Other capabilities import it through this
 * file only; the control API's handler (lambda/control) imports the service directly.
 */
export { AcceptedTally } from './accepted-tally.js';
export { DynamoDbUsageHistoryStore } from './dynamodb-usage-history-store.js';
export type { AcceptedUsageRecorder } from './ports.js';
