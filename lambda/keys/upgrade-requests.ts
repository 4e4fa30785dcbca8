import type { components } from '../../contracts/openapi/control-api.js';
import { PLAN_IDS, type PlanId } from '../../contracts/plans.js';
import { type Clock, nowIso } from '../shared/clock.js';
import { logger } from '../shared/powertools.js';
import { type HttpProblem, refuse } from '../shared/problem.js';
import type { AccountRecord, AccountStore, StoredUpgradeRequest } from './accounts.js';

export type UpgradeRequestView = components['schemas']['UpgradeRequest'];
export type PendingUpgradeRequest = components['schemas']['PendingUpgradeRequest'];

/** Where operators hear of a new request: the operations SNS topic on AWS, a recording stand-in locally. */
export interface OperationsNotifier {
  notify(subject: string, message: Readonly<Record<string, unknown>>): Promise<void>;
}

const rank = (plan: PlanId) => PLAN_IDS.indexOf(plan);

export function invalid(field: string, message: string): HttpProblem {
  return refuse('invalid_request', `${field}: ${message}`, 400, [{ field, message }]);
}

export function parsePlan(value: unknown): PlanId {
  if (typeof value !== 'string' || !(PLAN_IDS as readonly string[]).includes(value)) {
    throw invalid('plan', `must be one of ${PLAN_IDS.join(', ')}`);
  }
  return value as PlanId;
}

/** The request an account view shows: the pending one, or null. */
export function pendingView(account: AccountRecord): UpgradeRequestView | null {
  const request = account.upgradeRequest;
  return request?.status === 'pending' ? { plan: request.plan, status: 'pending', requestedAt: request.requestedAt } : null;
}

/** The stored request once the account moves to `plan`: approved when that is the requested plan or higher. */
export function settledBy(
  request: StoredUpgradeRequest | undefined,
  plan: PlanId,
  nowIso: string,
): StoredUpgradeRequest | undefined {
  if (request?.status !== 'pending' || rank(plan) < rank(request.plan)) return request;
  return { ...request, status: 'approved', decidedAt: nowIso };
}

/** Owners ask for a higher plan, operators approve with `plans set`: docs/operators/cli.md, "Upgrade requests". */
export class UpgradeRequests {
  constructor(
    private readonly deps: {
      readonly accounts: AccountStore;
      readonly notifier: OperationsNotifier;
      readonly clock: Clock;
    },
  ) {}

  async request(accountId: string, input: { plan: unknown; requestedBy?: string }): Promise<UpgradeRequestView> {
    const wanted = parsePlan(input.plan);
    const account = await this.deps.accounts.get(accountId);
    if (!account) throw refuse('account_not_found', `No account ${accountId}.`, 404);
    if (rank(wanted) <= rank(account.plan)) {
      throw refuse('plan_not_higher', `The account is on ${account.plan} already: request a higher plan.`, 409);
    }
    const current = pendingView(account);
    if (current?.plan === wanted) return current;

    const request: StoredUpgradeRequest = {
      plan: wanted,
      status: 'pending',
      requestedAt: nowIso(this.deps.clock),
      ...(input.requestedBy ? { requestedBy: input.requestedBy } : {}),
    };
    // Only while the plan is still the one judged above: an operator's change in between wins.
    if (!(await this.deps.accounts.setUpgradeRequest(accountId, request, account.plan))) {
      throw refuse('plan_not_higher', 'The account\'s plan changed meanwhile: reload and request again.', 409);
    }
    // The request is recorded (operators list it with `plans requests`); the message is a courtesy.
    try {
      await this.deps.notifier.notify(`Upgrade request: ${accountId} asks for ${wanted}`, {
        kind: 'upgrade_request',
        accountId,
        accountName: account.name,
        currentPlan: account.plan,
        plan: wanted,
        requestedAt: request.requestedAt,
        ...(request.requestedBy ? { requestedBy: request.requestedBy } : {}),
        approve: `npm run platform -- plans set --account ${accountId} --plan ${wanted}`,
      });
    } catch (error) {
      logger.error('upgrade request recorded, but the operations topic was not told', { accountId, error: error as Error });
    }
    return { plan: request.plan, status: 'pending', requestedAt: request.requestedAt };
  }

  pending(): Promise<PendingUpgradeRequest[]> {
    return pendingUpgradeRequests(this.deps.accounts);
  }
}

/** Every pending request, oldest first (the control API's operators' route, and `plans requests --stack`). */
export async function pendingUpgradeRequests(
  accounts: Pick<AccountStore, 'listWithPendingUpgrade'>,
): Promise<PendingUpgradeRequest[]> {
  return (await accounts.listWithPendingUpgrade())
    .flatMap((account) => {
      const view = pendingView(account);
      const requestedBy = account.upgradeRequest?.requestedBy;
      const listed = { accountId: account.accountId, accountName: account.name, currentPlan: account.plan };
      return view ? [{ ...listed, ...view, ...(requestedBy ? { requestedBy } : {}) }] : [];
    })
    .sort((a, b) => a.requestedAt.localeCompare(b.requestedAt) || a.accountId.localeCompare(b.accountId));
}
