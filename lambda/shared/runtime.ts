import { createDocumentClient } from './dynamodb.js';

/** The module-scoped DynamoDB client of a function, built once per cold start. */
export const documentClient = createDocumentClient();
