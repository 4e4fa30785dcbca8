import { Badge } from '../components/Badge';
import { KeyStatus } from '../components/KeyStatus';
import { Loading, Notice } from '../components/Notice';
import { PageHeading } from '../components/PageHeading';
import { Time } from '../components/Time';
import { UsageBar } from '../components/UsageBar';
import { useAsync } from '../components/useAsync';
import { usePolling } from '../components/usePolling';
import { planName, useApp } from '../context';
import { formatNumber } from '../format';
import type { Plan } from '../types';
import { maskedKey } from './KeysPage';
import { UpgradePath } from './usage/UpgradePath';
import { UsageHistory } from './usage/UsageHistory';

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
  usePolling(usage.refresh, { intervalMs: REFRESH_MS });

  const current = plans.find((p) => p.id === account.plan);
  const domainPlans = plans.filter((p) => p.customDomains).map((p) => p.displayName);
  const keys = usage.data?.keys ?? [];
  const banned = keys.filter((k) => k.bannedUntil);

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
          Limits apply to the account, per UTC minute and per UTC day: all its API keys share them, so another key
          adds no requests.{account.customLimits ? ' Your account has agreed limits.' : ''} A request over the limit
          gets 429 with Retry-After; a key that keeps sending after 429s is banned for a while (that key only).
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
          <h2 id="usage-heading">Usage</h2>
          <button type="button" className="button small secondary" onClick={() => void reload()}>Refresh</button>
        </div>
        <p className="hint">All keys of the account together. Updated every {REFRESH_MS / 1000} seconds while this page is visible.</p>
        {usage.error ? <Notice tone="error">{usage.error}</Notice> : null}
        {!usage.data && usage.loading ? <Loading label="Loading usage…" /> : null}
        {usage.data
          ? (
              <div className="bars">
                <UsageBar label="This minute" usage={usage.data.minute} />
                <UsageBar label="Today (UTC)" usage={usage.data.day} />
              </div>
            )
          : null}
        {banned.map((key) => (
          <Notice key={key.keyId} tone="error" title={`${key.name} is temporarily banned`}>
            <p>
              This key kept sending after 429 answers. Its requests are refused until{' '}
              <Time iso={key.bannedUntil as string} />; the account&apos;s other keys are not affected.
            </p>
          </Notice>
        ))}
      </section>

      <UsageHistory />

      <section aria-labelledby="per-key-heading" className="card">
        <h2 id="per-key-heading">Usage per key</h2>
        <p className="hint">What each key took from the account&apos;s budget, revoked keys included.</p>
        {usage.data && keys.length === 0
          ? <p className="empty">No keys yet. Generate a key on the API keys page to start sending messages.</p>
          : null}
        {keys.length > 0
          ? (
              <div className="table-scroll">
                <table className="table responsive">
                  <caption className="visually-hidden">Requests of each key this minute and today, oldest key first</caption>
                  <thead>
                    <tr>
                      <th scope="col">Name</th>
                      <th scope="col">Key</th>
                      <th scope="col">Status</th>
                      <th scope="col">This minute</th>
                      <th scope="col">Today (UTC)</th>
                      <th scope="col">Last used</th>
                    </tr>
                  </thead>
                  <tbody>
                    {keys.map((key) => (
                      <tr key={key.keyId}>
                        <th scope="row" data-label="Name">{key.name}</th>
                        <td data-label="Key"><code className="key-mask">{maskedKey(key)}</code></td>
                        <td data-label="Status"><KeyStatus keyView={key} /></td>
                        <td data-label="This minute">{formatNumber(key.used.minute)}</td>
                        <td data-label="Today (UTC)">{formatNumber(key.used.day)}</td>
                        <td data-label="Last used">{key.lastUsedAt ? <Time iso={key.lastUsedAt} /> : <span className="muted">Never</span>}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )
          : null}
      </section>

      <UpgradePath account={account} plans={plans} />

      <section aria-labelledby="plans-heading" className="card">
        <h2 id="plans-heading">Plans</h2>
        <p className="hint scroll-hint" aria-hidden="true">Swipe the table sideways to see every plan →</p>
        <div className="table-scroll" tabIndex={0} role="region" aria-labelledby="plans-heading">
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
