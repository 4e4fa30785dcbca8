import { useEffect } from 'react';
import { Badge } from '../components/Badge';
import { Loading, Notice } from '../components/Notice';
import { PageHeading } from '../components/PageHeading';
import { Time } from '../components/Time';
import { UsageBar } from '../components/UsageBar';
import { useAsync } from '../components/useAsync';
import { planName, useApp } from '../context';
import { formatNumber } from '../format';
import type { Plan } from '../types';
import { maskedKey } from './KeysPage';

const REFRESH_MS = 10_000;

/** Which features each plan has, as listed on this page. */
const FEATURES = [
  { label: 'Messages API with API keys', has: () => true },
  { label: 'Projects at a platform subdomain', has: () => true },
  { label: 'Custom domains', has: (plan: Plan) => plan.customDomains },
  { label: 'Agreed (custom) limits', has: (plan: Plan) => plan.customLimits },
] as const;

export function UsagePage() {
  const { api, me, plans } = useApp();
  const account = me.account;
  const usage = useAsync(() => api.usage(account.accountId), [api, account.accountId]);
  const { reload } = usage;

  useEffect(() => {
    const timer = window.setInterval(() => void reload(), REFRESH_MS);
    return () => window.clearInterval(timer);
  }, [reload]);

  const current = plans.find((p) => p.id === account.plan);
  const domainPlans = plans.filter((p) => p.customDomains).map((p) => p.displayName);
  const activeKeys = usage.data?.keys.filter((k) => k.status === 'active') ?? [];
  const revokedKeys = usage.data?.keys.filter((k) => k.status === 'revoked') ?? [];

  return (
    <>
      <PageHeading title="Plan & usage" />

      <section aria-labelledby="plan-heading" className="card">
        <h2 id="plan-heading">Current plan: {planName(plans, account.plan)}</h2>
        <p className="hint">Account {account.name} (<code>{account.accountId}</code>)</p>
        <dl className="facts">
          <div>
            <dt>Requests per minute</dt>
            <dd>{formatNumber(account.limits.perMinute)}</dd>
          </div>
          <div>
            <dt>Requests per day</dt>
            <dd>{formatNumber(account.limits.perDay)}</dd>
          </div>
          <div>
            <dt>Custom domains</dt>
            <dd>{current?.customDomains ? 'Included' : 'Not included'}</dd>
          </div>
        </dl>
        <p className="hint">
          Limits apply to each API key, per UTC minute and per UTC day.
          {account.customLimits ? ' Your account has agreed limits.' : ''} A request over the limit gets 429 with
          Retry-After; continuing after a 429 can get the key banned for a while.
        </p>
        {current && !current.customDomains && domainPlans.length > 0
          ? (
              <Notice tone="info" title={`Custom domains need ${domainPlans[0]} or above.`}>
                <p>
                  Your projects are served at their platform subdomain. To attach your own domains, move to{' '}
                  {domainPlans.join(', ')}.
                </p>
              </Notice>
            )
          : null}
      </section>

      <section aria-labelledby="usage-heading" className="card">
        <div className="card-head">
          <h2 id="usage-heading">Usage per key</h2>
          <button type="button" className="button small secondary" onClick={() => void reload()}>Refresh</button>
        </div>
        <p className="hint">Updated every {REFRESH_MS / 1000} seconds.</p>
        {usage.error ? <Notice tone="error">{usage.error}</Notice> : null}
        {!usage.data && usage.loading ? <Loading label="Loading usage…" /> : null}
        {usage.data && activeKeys.length === 0
          ? <p className="empty">No active keys. Generate a key on the API keys page to start sending messages.</p>
          : null}
        <ul className="usage-list">
          {activeKeys.map((key) => (
            <li key={key.keyId} className="usage-key">
              <h3>
                {key.name} <code className="key-mask">{maskedKey(key)}</code>
              </h3>
              {key.bannedUntil
                ? (
                    <Notice tone="error" title="Temporarily banned">
                      <p>
                        This key kept sending after 429 answers. Requests are refused until{' '}
                        <Time iso={key.bannedUntil} />.
                      </p>
                    </Notice>
                  )
                : null}
              <div className="bars">
                <UsageBar label="This minute" usage={key.minute} />
                <UsageBar label="Today (UTC)" usage={key.day} />
              </div>
            </li>
          ))}
        </ul>
        {revokedKeys.length > 0
          ? <p className="hint">{revokedKeys.length} revoked {revokedKeys.length === 1 ? 'key is' : 'keys are'} not shown.</p>
          : null}
      </section>

      <section aria-labelledby="plans-heading" className="card">
        <h2 id="plans-heading">Plans</h2>
        <div className="table-scroll">
          <table className="table plans">
            <caption className="visually-hidden">Limits and features of each plan</caption>
            <thead>
              <tr>
                <th scope="col">Feature</th>
                {plans.map((plan) => (
                  <th scope="col" key={plan.id}>
                    {plan.displayName}
                    {plan.id === account.plan ? <><br /><Badge tone="success">Current</Badge></> : null}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              <tr>
                <th scope="row">Requests per minute</th>
                {plans.map((plan) => <td key={plan.id}>{plan.customLimits ? 'Agreed' : formatNumber(plan.limits.perMinute)}</td>)}
              </tr>
              <tr>
                <th scope="row">Requests per day</th>
                {plans.map((plan) => <td key={plan.id}>{plan.customLimits ? 'Agreed' : formatNumber(plan.limits.perDay)}</td>)}
              </tr>
              {FEATURES.map((feature) => (
                <tr key={feature.label}>
                  <th scope="row">{feature.label}</th>
                  {plans.map((plan) => (
                    <td key={plan.id}>
                      {feature.has(plan)
                        ? <><span aria-hidden="true" className="yes">✓</span> Yes</>
                        : <><span aria-hidden="true" className="no">—</span> No</>}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>
    </>
  );
}
