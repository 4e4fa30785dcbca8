/** The public module of the usage-history capability (accepted and refused requests per account, key and UTC day). */
export { AcceptedTally } from './accepted-tally.js';
export { DynamoDbUsageHistoryStore } from './dynamodb-usage-history-store.js';
export type { AcceptedUsageRecorder } from './ports.js';
