import { type ReactNode, useEffect, useState } from 'react';
import { Badge, Card, CopyButton, Loading, LongValue, PageHeading, QueryState, Time } from '../components/parts';
import { PlatformUrl } from '../components/PlatformUrl';
import { UsageBars } from '../components/UsageBar';
import { useQuery } from '@tanstack/react-query';
import { planName, useApp } from '../context';
import { queryKeys, useAccount } from '../queries';
import { formatNumber } from '../format';
import { REFRESH_INTERVAL_MS } from '../query-client';
import { href } from '../router';
import { batchSend, CodeBlock, type CurlExample, singleSend } from './overview/curl';

/** While a step waits for something to happen elsewhere (a request, a deploy), how often to look. */
const STEP_POLL_MS = 5_000;

export function OverviewPage() {
  const { api, accountId, plans, config } = useApp();
  const account = useAccount();
  // The keys, usage and projects pages' cache entries, read more often while a step waits.
  const [waiting, setWaiting] = useState(true);
  const poll = { refetchInterval: waiting ? STEP_POLL_MS : REFRESH_INTERVAL_MS };
  const keys = useQuery({ queryKey: queryKeys.keys(accountId), queryFn: () => api.keys(accountId), ...poll });
  const usage = useQuery({ queryKey: queryKeys.usage(accountId), queryFn: () => api.usage(accountId), ...poll });
  const projects = useQuery({
    queryKey: queryKeys.projects(accountId),
    queryFn: () => api.projects(accountId),
    ...poll,
  });
  const data = keys.data && usage.data && projects.data
    ? { keys: keys.data, usage: usage.data, projects: projects.data }
    : undefined;
  const error = keys.error ?? usage.error ?? projects.error;
  // The latest last use of any key (revoked ones too) outlives the day's count; today's count is the fallback.
  const lastAt = data?.keys.map((k) => k.lastUsedAt).filter((t) => t !== undefined).sort().at(-1);
  const received = lastAt !== undefined || (data?.usage.day.used ?? 0) > 0;
  const live = data?.projects.find((p) => p.liveDeployId !== undefined);
  const stillWaiting = data === undefined || !received || !live;
  useEffect(() => setWaiting(stillWaiting), [stillWaiting]);

  const base = config.messagesApiUrl;
  const activeKeys = data?.keys.filter((k) => k.status === 'active') ?? [];

  return (
    <>
      <PageHeading title="Overview">
        <p className="lead">Your Messages API, your plan, and three steps to a first message and a first site.</p>
      </PageHeading>

      <Card title="Messages API">
        <dl className="facts">
          <div>
            <dt>Base URL</dt>
            <dd>
              <span className="cell-copy">
                <code><LongValue value={base || 'not configured'} /></code>
                {base && <CopyButton value={base} label="Copy the API base URL" />}
              </span>
            </dd>
          </div>
          <div><dt>Authentication</dt><dd><code>Authorization: Bearer &lt;API key&gt;</code></dd></div>
        </dl>
        {/* The API documents ship with this app (docs/*.yaml). */}
        <div className="docs-links">
          <h3>Documentation</h3>
          <ul>
            <li>
              <a href="docs/openapi.yaml">Messages API reference</a> (OpenAPI 3.1): requests, answers, error codes and
              rate-limit headers.
            </li>
            <li>
              <a href="docs/control-api.yaml">Control API reference</a>: keys, usage, projects and domains, as this
              dashboard uses them.
            </li>
            <li className="hint">
              In the repository: docs/api-clients.md (the order of checks, limits and bans) and docs/owners.md (the
              dashboard, projects and custom domains).
            </li>
          </ul>
        </div>
      </Card>

      <Card
        title={`${planName(plans, account.plan)} plan`}
        head={<a className="button small secondary" href={href.usage}>See limits and usage per key</a>}
      >
        <p className="hint">
          {formatNumber(account.limits.perMinute)} messages a minute and{' '}
          {formatNumber(account.limits.perDay)} a day,
          shared by all keys of the account.
        </p>
        <QueryState query={{ error, isPending: !data && !error }} loading="Loading your account…" />
        {data && <UsageBars usage={data.usage} />}
      </Card>

      <Card title="Get started">
        {data
          ? (
              <ol className="start-steps">
                <Step number={1} title="Create an API key" done={activeKeys.length > 0}>
                  {activeKeys.length > 0
                    ? <p>You have {activeKeys.length === 1 ? 'an active key' : `${formatNumber(activeKeys.length)} active keys`}. <a href={href.keys}>Manage keys</a></p>
                    : (
                        <>
                          <p>A key authenticates your requests. It is shown once, when you generate it.</p>
                          <a className="button primary" href={href.keys}>Generate a key</a>
                        </>
                      )}
                </Step>
                <Step number={2} title="Send a test request" done={received}>
                  {received
                    ? (
                        <p className="step-result">
                          <span aria-hidden="true">✓ </span>First message received
                          {lastAt && <>; last one <Time iso={lastAt} /></>}.
                        </p>
                      )
                    : (
                        <p>
                          Put your key in <code>API_KEY</code> and run one of these. This step ticks once a message is
                          accepted.
                        </p>
                      )}
                  <div className="grid2 curls">
                    <CurlBlock title="One message" example={singleSend(base)} />
                    <CurlBlock title="A batch (1 to 100 messages)" example={batchSend(base)} />
                  </div>
                  <p className="hint">
                    The answer is <code>202 Accepted</code> with the queued message (a batch: all of them, and it counts
                    as that many messages against your limits). A key counts as used when the API accepts a message with
                    it: that is what ticks this step, and it stays after the day&apos;s count starts again.
                  </p>
                </Step>
                <Step number={3} title="Deploy a site" done={live !== undefined}>
                  {live
                    ? (
                        <p className="step-result">
                          <span aria-hidden="true">✓ </span>{live.name} is live at{' '}
                          <PlatformUrl url={live.url} />
                        </p>
                      )
                    : (
                        <>
                          <p>
                            Create a project, then deploy a folder with an <code>index.html</code>: it is published
                            at its own subdomain
                            {config.platformDomain && <> of <code>{config.platformDomain}</code></>}.
                          </p>
                          <a className="button secondary" href={href.projects}>Create a project</a>
                        </>
                      )}
                </Step>
              </ol>
            )
          : error ? null : <Loading label="Loading your progress…" />}
      </Card>
    </>
  );
}

function Step({ number, title, done, children }: {
  readonly number: number;
  readonly title: string;
  readonly done: boolean;
  readonly children: ReactNode;
}) {
  return (
    <li className={`start-step ${done ? 'start-step-done' : 'start-step-todo'}`} aria-labelledby={`step-${number}-title`}>
      <span className="start-step-mark" aria-hidden="true">{done ? '✓' : number}</span>
      <div className="start-step-body">
        <h3 id={`step-${number}-title`}>
          {title}{' '}
          <Badge tone={done ? 'success' : 'neutral'}>{done ? 'Done' : 'To do'}</Badge>
        </h3>
        {children}
      </div>
    </li>
  );
}

function CurlBlock({ title, example }: { readonly title: string; readonly example: CurlExample }) {
  return (
    <div className="curl">
      <h4>{title}</h4>
      <CodeBlock example={example} label={`Copy the curl command: ${title.toLowerCase()}`} />
    </div>
  );
}
