import { useQueryClient } from '@tanstack/react-query';
import { ActionError, Badge, Card, Notice, PageHeading, Time } from '../components/parts';
import { useAction } from '../flash';
import { planName, useApp } from '../context';
import { queryKeys, useAccount } from '../queries';
import { href } from '../router';
import { formatNumber } from '../format';
import type { Account, Plan } from '../types';

/** Which features each plan has, from the catalogue (GET /plans). */
const FEATURES = [
  { label: 'Messages API with API keys', has: () => true },
  { label: 'Projects at a platform subdomain', has: () => true },
  { label: 'Custom domains', has: (plan: Plan) => plan.customDomains },
  { label: 'Agreed (custom) limits', has: (plan: Plan) => plan.customLimits },
] as const;

/** The owner's request, until an operator moves the account to its plan or above (whatever the record says). */
export function pendingRequest(account: Account, plans: readonly Plan[]) {
  const request = account.upgradeRequest;
  if (!request || request.status !== 'pending') return undefined;
  const rank = (id: string) => plans.findIndex((p) => p.id === id);
  return rank(request.plan) > rank(account.plan) ? request : undefined;
}

/** Compare plans; "Request upgrade" records a request the operators see (there is no billing). */
export function PlansPage() {
  const { api, accountId, plans } = useApp();
  const account = useAccount();
  const queryClient = useQueryClient();
  const { busy, error, run } = useAction();
  const pending = pendingRequest(account, plans);
  const currentIndex = plans.findIndex((p) => p.id === account.plan);

  const request = (plan: Plan) =>
    run(async () => {
      const upgradeRequest = await api.requestUpgrade(accountId, plan.id);
      const key = queryKeys.account(accountId);
      queryClient.setQueryData<Account>(key, (a) => (a ? { ...a, upgradeRequest } : a));
      await queryClient.invalidateQueries({ queryKey: key });
    });

  return (
    <>
      <PageHeading title="Plans">
        <p className="lead">
          You are on the <strong>{planName(plans, account.plan)}</strong> plan. <a href={href.usage}>See your usage</a>
        </p>
      </PageHeading>

      <div role="status">
        {pending && (
          <Notice tone="info" title={`Upgrade to ${planName(plans, pending.plan)} requested`}>
            <p>
              You asked on <Time iso={pending.requestedAt} />. It is pending until the platform team acts on it;
              the new limits apply from the next request after they do, with nothing to do on your side.
            </p>
          </Notice>
        )}
      </div>

      <ul className="plan-cards" aria-label="Plans">
        {plans.map((plan, index) => {
          const current = plan.id === account.plan;
          const requested = pending?.plan === plan.id;
          return (
            <li key={plan.id} className={`card plan-card${current ? ' plan-current' : ''}`} aria-labelledby={`plan-${plan.id}`}>
              <div className="card-head">
                <h2 id={`plan-${plan.id}`}>{plan.displayName}</h2>
                {current && <Badge tone="success">Current</Badge>}
                {requested && <Badge tone="progress">Requested</Badge>}
              </div>
              <p className="plan-limits">
                {plan.customLimits
                  ? 'Limits agreed with you'
                  : `${formatNumber(plan.limits.perMinute)} requests a minute, ${formatNumber(plan.limits.perDay)} a day`}
              </p>
              <ul className="plan-features">
                {FEATURES.map((feature) => (
                  <li key={feature.label}>
                    {feature.has(plan)
                      ? <><span aria-hidden="true" className="yes">✓</span> {feature.label}</>
                      : <><span aria-hidden="true" className="no">—</span> <span className="muted">No {feature.label.toLowerCase()}</span></>}
                  </li>
                ))}
              </ul>
              {index > currentIndex && currentIndex >= 0 && (
                <button
                  type="button"
                  className="button primary"
                  disabled={busy || pending !== undefined}
                  onClick={() => void request(plan)}
                  aria-label={`Request upgrade to ${plan.displayName}`}
                >
                  {requested ? 'Requested' : 'Request upgrade'}
                </button>
              )}
            </li>
          );
        })}
      </ul>
      <ActionError error={error} />

      <Card title="About billing">
        <p>
          Billing is not part of the platform: requesting an upgrade charges nothing and asks for no payment details.
          The platform team receives your request, agrees any terms with you outside the platform, and changes the
          plan; you see the new plan here as soon as they do.
        </p>
        {currentIndex === plans.length - 1 && (
          <p>You are on the top plan: its limits are agreed individually. To change them, ask the platform team.</p>
        )}
      </Card>
    </>
  );
}
