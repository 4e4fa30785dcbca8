import { formatNumber } from '../../format';
import type { Account, Plan } from '../../types';

const limitsText = (plan: Plan) =>
  plan.customLimits
    ? 'limits agreed with you'
    : `${formatNumber(plan.limits.perMinute)} requests a minute and ${formatNumber(plan.limits.perDay)} a day`;

/**
 * How to move up from the current plan, honestly: what each higher plan changes (its limits and
 * custom domains, from the platform's own plan catalogue, GET /plans), and that the platform team
 * makes the change, since there is no self-service billing.
 */
export function UpgradePath({ account, plans }: { account: Account; plans: readonly Plan[] }) {
  const index = plans.findIndex((p) => p.id === account.plan);
  const current = plans[index];
  const higher = index >= 0 ? plans.slice(index + 1) : [];
  return (
    <section aria-labelledby="upgrade-heading" className="card">
      <h2 id="upgrade-heading">Need higher limits?</h2>
      {higher.length === 0
        ? (
            <p>
              You are on {current?.displayName ?? 'the top plan'}: your limits are agreed individually. To change them,
              contact the platform team.
            </p>
          )
        : (
            <>
              <p>Moving up changes, for every key of the account, from the next request on:</p>
              <ul className="upgrade-list">
                {higher.map((plan) => (
                  <li key={plan.id}>
                    <strong>{plan.displayName}</strong>: {limitsText(plan)}
                    {current && !current.customDomains && plan.customDomains ? '; custom domains for your projects' : ''}.
                  </li>
                ))}
              </ul>
            </>
          )}
      <p className="hint">
        There is no online billing: plan changes are made by the platform team. Ask them to move account{' '}
        <code>{account.accountId}</code>; they run{' '}
        <code>npm run platform -- plans set --account {account.accountId} --plan &lt;plan&gt;</code>, and the new
        limits apply from the next request.
      </p>
    </section>
  );
}
