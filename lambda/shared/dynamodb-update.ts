/**
 * The expression parts of an UpdateItem that applies `changes` (undefined values are removed) to an
 * existing item (`keyName` must exist) whose attributes still equal those `expected` gives (not undefined).
 */
export function conditionalUpdate(
  keyName: string,
  changes: object,
  expected: object = {},
): {
  UpdateExpression: string;
  ConditionExpression: string;
  ExpressionAttributeNames: Record<string, string>;
  ExpressionAttributeValues?: Record<string, unknown>;
} {
  const set: string[] = [];
  const remove: string[] = [];
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(changes)) {
    names[`#${name}`] = name;
    if (value === undefined) remove.push(`#${name}`);
    else {
      set.push(`#${name} = :${name}`);
      values[`:${name}`] = value;
    }
  }
  names['#key'] = keyName;
  const conditions = ['attribute_exists(#key)'];
  for (const [name, value] of Object.entries(expected)) {
    if (value === undefined) continue;
    conditions.push(`#expected_${name} = :expected_${name}`);
    names[`#expected_${name}`] = name;
    values[`:expected_${name}`] = value;
  }
  return {
    UpdateExpression: [set.length ? `SET ${set.join(', ')}` : '', remove.length ? `REMOVE ${remove.join(', ')}` : '']
      .filter(Boolean)
      .join(' '),
    ConditionExpression: conditions.join(' AND '),
    ExpressionAttributeNames: names,
    ...(Object.keys(values).length > 0 ? { ExpressionAttributeValues: values } : {}),
  };
}

/**
 * The `ADD` clause of an UpdateExpression that adds each amount to its counter attribute
 * (DynamoDB creates a missing counter at the amount). The caller leaves out what it need not send.
 */
export function addClause(amounts: ReadonlyArray<readonly [string, number]>): {
  clause: string;
  names: Record<string, string>;
  values: Record<string, number>;
} {
  const names: Record<string, string> = {};
  const values: Record<string, number> = {};
  amounts.forEach(([name, amount], i) => {
    names[`#a${i}`] = name;
    values[`:a${i}`] = amount;
  });
  return { clause: `ADD ${amounts.map((_, i) => `#a${i} :a${i}`).join(', ')}`, names, values };
}
