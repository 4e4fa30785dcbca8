/** Builds `SET`/`REMOVE` parts of an UpdateExpression from a change set (undefined values are removed). */
export function updateExpression(changes: Record<string, unknown>): {
  expression: string;
  names: Record<string, string>;
  values: Record<string, unknown>;
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
  const expression = [set.length ? `SET ${set.join(', ')}` : '', remove.length ? `REMOVE ${remove.join(', ')}` : '']
    .filter(Boolean)
    .join(' ');
  return { expression, names, values };
}

/**
 * The expression parts of an UpdateItem that applies `changes` to an existing item (`keyName`
 * must exist) whose attributes still equal `expected`, if given.
 */
export function conditionalUpdate(
  keyName: string,
  changes: object,
  expected?: Record<string, unknown>,
): {
  UpdateExpression: string;
  ConditionExpression: string;
  ExpressionAttributeNames: Record<string, string>;
  ExpressionAttributeValues?: Record<string, unknown>;
} {
  const { expression, names, values } = updateExpression(changes as Record<string, unknown>);
  const conditions = ['attribute_exists(#key)'];
  const allNames: Record<string, string> = { ...names, '#key': keyName };
  const allValues: Record<string, unknown> = { ...values };
  for (const [name, value] of Object.entries(expected ?? {})) {
    conditions.push(`#expected_${name} = :expected_${name}`);
    allNames[`#expected_${name}`] = name;
    allValues[`:expected_${name}`] = value;
  }
  return {
    UpdateExpression: expression,
    ConditionExpression: conditions.join(' AND '),
    ExpressionAttributeNames: allNames,
    ...(Object.keys(allValues).length > 0 ? { ExpressionAttributeValues: allValues } : {}),
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
