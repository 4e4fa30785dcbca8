import { useQuery } from '@tanstack/react-query';
import { Card, Notice, PageHeading, QueryState, Table, Time } from '../components/parts';
import { UsageBars } from '../components/UsageBar';
import { planName, useApp } from '../context';
import { formatNumber } from '../format';
import { REFRESH_INTERVAL_MS } from '../query-client';
import { queryKeys, useCurrentPlan } from '../queries';
import { href } from '../router';
import { keyColumns, lastUsed } from './KeysPage';
import { pendingRequest } from './PlansPage';
import { UsageHistory } from './usage/UsageHistory';

export function UsagePage() {
  const { api, plans } = useApp();
  const { account, plan: current } = useCurrentPlan();
  const usage = useQuery({ queryKey: queryKeys.usage(account.accountId), queryFn: () => api.usage(account.accountId) });
  const pending = pendingRequest(account, plans);
  const domainPlans = plans.filter((p) => p.customDomains).map((p) => p.displayName);
  const banned = usage.data?.keys.filter((k) => k.bannedUntil) ?? [];

  return (
    <>
      <PageHeading title="Plan & usage" />

      <Card title={`Current plan: ${planName(plans, account.plan)}`}>
        <p className="hint">Account {account.name} (<code>{account.accountId}</code>)</p>
        <dl className="facts">
          <div><dt>Requests per minute</dt><dd>{formatNumber(account.limits.perMinute)}</dd></div>
          <div><dt>Requests per day</dt><dd>{formatNumber(account.limits.perDay)}</dd></div>
          <div><dt>Custom domains</dt><dd>{current?.customDomains ? 'Included' : 'Not included'}</dd></div>
        </dl>
        <p className="hint">
          Limits apply to the account, per UTC minute and per UTC day: all its API keys share them, so another key
          adds no requests.{account.customLimits ? ' Your account has agreed limits.' : ''} A request over the limit
          gets 429 with Retry-After; a key that keeps sending after 429s is banned for a while (that key only).
        </p>
        {pending && (
          <Notice tone="info" title={`Upgrade to ${planName(plans, pending.plan)} requested`}>
            <p>Pending since <Time iso={pending.requestedAt} />, until the platform team acts on it.</p>
          </Notice>
        )}
        <p><a className="button secondary" href={href.plans}>Compare plans</a></p>
        {current && !current.customDomains && domainPlans.length > 0 && (
          <Notice tone="info" title={`Custom domains need ${domainPlans[0]} or above.`}>
            <p>
              Your projects are served at their platform subdomain. To attach your own domains, move to{' '}
              {domainPlans.join(', ')}.
            </p>
          </Notice>
        )}
      </Card>

      <Card title="Usage" refresh={() => void usage.refetch()}>
        <p className="hint">All keys of the account together. Updated every {REFRESH_INTERVAL_MS / 1000} seconds while this page is visible.</p>
        <QueryState query={usage} loading="Loading usage…" />
        {usage.data && <UsageBars usage={usage.data} />}
        {banned.map((key) => (
          <Notice key={key.keyId} tone="error" title={`${key.name} is temporarily banned`}>
            <p>
              This key kept sending after 429 answers. Its requests are refused until{' '}
              <Time iso={key.bannedUntil as string} />; the account&apos;s other keys are not affected.
            </p>
          </Notice>
        ))}
      </Card>

      <UsageHistory />

      <Card title="Usage per key">
        <p className="hint">What each key took from the account&apos;s budget, revoked keys included.</p>
        <QueryState
          rows={usage.data?.keys}
          empty="No keys yet. Generate a key on the API keys page to start sending messages."
        >
          {(rows) => (
            <div className="table-scroll">
              <Table
                caption="Requests of each key this minute and today, oldest key first"
                hideCaption
                rows={rows}
                rowKey={(key) => key.keyId}
                columns={[
                  ...keyColumns,
                  { label: 'This minute', cell: (key) => formatNumber(key.used.minute) },
                  { label: 'Today (UTC)', cell: (key) => formatNumber(key.used.day) },
                  { label: 'Last used', cell: lastUsed },
                ]}
              />
            </div>
          )}
        </QueryState>
      </Card>
    </>
  );
}
