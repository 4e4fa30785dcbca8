import { describe, expect, it } from 'vitest';
import { addClause } from '../../../lambda/shared/dynamodb-update.js';

describe('addClause', () => {
  it('adds each amount to its counter, names and values by placeholder, in the order given', () => {
    expect(addClause([['m#100', 3], ['accepted:key_a', -1]])).toEqual({
      clause: 'ADD #a0 :a0, #a1 :a1',
      names: { '#a0': 'm#100', '#a1': 'accepted:key_a' },
      values: { ':a0': 3, ':a1': -1 },
    });
  });
});
