import { createRequire } from 'node:module';

/**
 * dynalite 4.0.0 ignores ReturnValuesOnConditionCheckFailure. DynamoDB sends the item that failed a
 * conditional write when asked (ALL_OLD), and the request path relies on it (the limiter's refusals,
 * the Idempotency-Key's claim): taught here, so the code has one path on AWS and locally.
 * https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_PutItem.html#DDB-PutItem-request-ReturnValuesOnConditionCheckFailure
 */
const require = createRequire(import.meta.url);

interface ConditionalError extends Error {
  body?: Record<string, unknown>;
}

type CheckConditional = (data: Record<string, unknown>, existing: unknown) => ConditionalError | null | undefined;

let taught = false;

export function teachReturnValuesOnConditionCheckFailure(): void {
  if (taught) return;
  taught = true;
  for (const action of ['putItem', 'updateItem', 'deleteItem']) {
    const { types } = require(`dynalite/validations/${action}.js`) as { types: Record<string, unknown> };
    types.ReturnValuesOnConditionCheckFailure = { type: 'String', enum: ['ALL_OLD', 'NONE'] };
  }
  const db = require('dynalite/db/index.js') as { checkConditional: CheckConditional };
  const checkConditional = db.checkConditional;
  db.checkConditional = (data, existing) => {
    const refusal = checkConditional(data, existing);
    if (refusal?.body && existing && data.ReturnValuesOnConditionCheckFailure === 'ALL_OLD') {
      refusal.body = { ...refusal.body, Item: existing };
    }
    return refusal;
  };
}
