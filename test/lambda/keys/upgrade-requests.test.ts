import { describe, expect, it } from 'vitest';
import { type OperationsNotifier, UpgradeRequests } from '../../../lambda/keys/upgrade-requests.js';
import { iso, refusal, setup, T0 } from './account-service-fixtures.js';

/** A notifier that keeps what it was told (and can be made to fail, as SNS can). */
function recordingNotifier(fail = false) {
  const sent: Array<{ subject: string; message: Readonly<Record<string, unknown>> }> = [];
  const notifier: OperationsNotifier = {
    notify(subject, message) {
      sent.push({ subject, message });
      return fail ? Promise.reject(new Error('SNS unavailable')) : Promise.resolve();
    },
  };
  return { sent, notifier };
}

function upgradeSetup(fail = false) {
  const base = setup();
  const { sent, notifier } = recordingNotifier(fail);
  const upgrades = new UpgradeRequests({ accounts: base.accounts, notifier, clock: base.clock });
  return { ...base, sent, upgrades };
}

describe('UpgradeRequests', () => {
  it('records a request for a higher plan, shows it on the account and tells the operators once per plan', async () => {
    const { createAccount, upgrades, accountService, sent, clock } = upgradeSetup();
    await createAccount('free');
    expect((await accountService.getAccount('acct_1')).upgradeRequest).toBeNull();

    const pending = await upgrades.request('acct_1', { plan: 'pro', requestedBy: 'owner@example.com' });
    expect(pending).toEqual({ plan: 'pro', status: 'pending', requestedAt: iso(T0) });
    expect((await accountService.getAccount('acct_1')).upgradeRequest).toEqual(pending);
    expect(sent).toEqual([
      {
        subject: 'Upgrade request: acct_1 asks for pro',
        message: {
          kind: 'upgrade_request',
          accountId: 'acct_1',
          accountName: 'Acme',
          currentPlan: 'free',
          plan: 'pro',
          requestedAt: iso(T0),
          requestedBy: 'owner@example.com',
          approve: 'npm run platform -- plans set --account acct_1 --plan pro',
        },
      },
    ]);

    clock.advance(60_000);
    expect(await upgrades.request('acct_1', { plan: 'pro' })).toEqual(pending);
    expect(sent).toHaveLength(1);
    const replaced = await upgrades.request('acct_1', { plan: 'enterprise', requestedBy: 'owner@example.com' });
    expect(replaced).toEqual({ plan: 'enterprise', status: 'pending', requestedAt: iso(T0 + 60_000) });
    expect(sent.map((s) => s.message.plan)).toEqual(['pro', 'enterprise']);
    expect(await upgrades.pending()).toEqual([
      { accountId: 'acct_1', accountName: 'Acme', currentPlan: 'free', ...replaced, requestedBy: 'owner@example.com' },
    ]);
  });

  it('refuses an unknown plan (400), the current or a lower plan (409), and an unknown account (404), recording nothing', async () => {
    const { createAccount, upgrades, sent, data } = upgradeSetup();
    await createAccount('business');
    const before = data();
    expect(await refusal(upgrades.request('acct_1', { plan: 'platinum' }))).toMatchObject({
      status: 400,
      code: 'invalid_request',
      errors: [{ field: 'plan', message: 'must be one of free, pro, business, enterprise' }],
    });
    for (const plan of ['business', 'pro', 'free']) {
      expect(await refusal(upgrades.request('acct_1', { plan }))).toMatchObject({ status: 409, code: 'plan_not_higher' });
    }
    expect(await refusal(upgrades.request('acct_nope', { plan: 'enterprise' }))).toMatchObject({ status: 404, code: 'account_not_found' });
    expect(data()).toBe(before);
    expect(sent).toEqual([]);
  });

  it('refuses with 409 when the plan changed between the read and the write (the operator wins)', async () => {
    const { createAccount, upgrades, accounts } = upgradeSetup();
    await createAccount('free');
    const get = accounts.get.bind(accounts);
    // The read sees Free; an operator moves the account to Pro before the write.
    accounts.get = async (id) => {
      const seen = await get(id);
      const stored = accounts.accounts.get(id);
      if (stored) accounts.accounts.set(id, { ...stored, plan: 'pro' });
      return seen;
    };
    expect(await refusal(upgrades.request('acct_1', { plan: 'pro' }))).toMatchObject({ status: 409, code: 'plan_not_higher' });
    expect(accounts.accounts.get('acct_1')?.upgradeRequest).toBeUndefined();
  });

  it('keeps the recorded request when the operations topic cannot be told', async () => {
    const { createAccount, upgrades, sent } = upgradeSetup(true);
    await createAccount('free');
    expect(await upgrades.request('acct_1', { plan: 'pro' })).toMatchObject({ status: 'pending' });
    expect(sent).toHaveLength(1);
    expect(await upgrades.pending()).toHaveLength(1);
  });

  it('plans set approves a pending request with the requested plan or a higher one; a lower one leaves it pending', async () => {
    const { createAccount, upgrades, accountService, accounts, clock } = upgradeSetup();
    await createAccount('free');
    await upgrades.request('acct_1', { plan: 'business' });
    await accountService.setPlan('acct_1', { plan: 'pro' });
    expect((await accountService.getAccount('acct_1')).upgradeRequest).toMatchObject({ plan: 'business', status: 'pending' });

    clock.advance(5_000);
    const approved = await accountService.setPlan('acct_1', { plan: 'business' });
    expect(approved.upgradeRequest).toBeNull();
    expect(accounts.accounts.get('acct_1')?.upgradeRequest).toMatchObject({ plan: 'business', status: 'approved', decidedAt: iso(T0 + 5_000) });
    expect(await upgrades.pending()).toEqual([]);
  });
});
