import { describe, expect, it } from 'vitest';
import { clean, keysTable, keyValues, maskedKey, table } from '../../cli/format.js';

describe('human output', () => {
  it('aligns table columns and shows missing values as -', () => {
    expect(table(['ID', 'NAME', 'LAST USED'], [['key_1', 'a long name', undefined], ['key_22', 'b', '2026-01-01T00:00:00.000Z']])).toBe(
      'ID      NAME         LAST USED\n' +
      'key_1   a long name  -\n' +
      'key_22  b            2026-01-01T00:00:00.000Z\n',
    );
  });

  it('aligns key-value lines', () => {
    expect(keyValues([['account', 'acct_1'], ['plan', 'pro'], ['updated', undefined]])).toBe('account  acct_1\nplan     pro\nupdated  -\n');
  });

  it('shows a key as prefix…last4, and never lets control characters through', () => {
    expect(maskedKey({ prefix: 'sk_live_AbCd', last4: 'wXyZ' })).toBe('sk_live_AbCd…wXyZ');
    expect(clean('evil\u001b[2Jname\n')).toBe('evil?[2Jname?');
    expect(keysTable([])).toBe('No keys.\n');
  });
});
