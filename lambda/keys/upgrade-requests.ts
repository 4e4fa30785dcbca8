import { PLAN_IDS, type PlanId } from '../../contracts/plans.js';
import type { Clock } from '../shared/clock.js';
import { logger } from '../shared/powertools.js';
import { refuse } from '../shared/problem.js';
import type { AccountRecord, AccountStore, StoredUpgradeRequest } from './accounts.js';

/** What the owner sees of their request: pending until an operator changes the plan. */
export interface UpgradeRequestView {
  readonly plan: PlanId;
  readonly status: 'pending';
  readonly requestedAt: string;
}

/** A pending request as operators list it (`plans requests`). */
export interface PendingUpgradeRequest extends UpgradeRequestView {
  readonly accountId: string;
  readonly accountName: string;
  readonly currentPlan: PlanId;
  readonly requestedBy?: string;
}

/** Where operators hear of a new request: the operations SNS topic on AWS, a recording stand-in locally. */
export interface OperationsNotifier {
  notify(subject: string, message: Readonly<Record<string, unknown>>): Promise<void>;
}

const rank = (plan: PlanId) => PLAN_IDS.indexOf(plan);

/** The request an account view shows: the pending one, or null. */
export function pendingView(account: AccountRecord): UpgradeRequestView | null {
  const request = account.upgradeRequest;
  return request?.status === 'pending' ? { plan: request.plan, status: 'pending', requestedAt: request.requestedAt } : null;
}

/**
 * The stored request once the account moves to `plan` (`plans set`): approved when the account now
 * has the requested plan or a higher one; otherwise as it was.
 */
export function settledBy(
  request: StoredUpgradeRequest | undefined,
  plan: PlanId,
  nowIso: string,
): StoredUpgradeRequest | undefined {
  if (request?.status !== 'pending' || rank(plan) < rank(request.plan)) return request;
  return { ...request, status: 'approved', decidedAt: nowIso };
}

/**
 * Owners ask for a higher plan; operators see the requests and approve one by changing the plan
 * (`plans set`). Billing is not part of the platform: a request is a message to the platform team.
 * One pending request per account: a new one for another plan replaces it (the owner changed their
 * mind); one for the plan already pending answers that request again without a new notification.
 */
export class UpgradeRequests {
  constructor(
    private readonly deps: {
      readonly accounts: AccountStore;
      readonly notifier: OperationsNotifier;
      readonly clock: Clock;
    },
  ) {}

  async request(accountId: string, input: { plan: unknown; requestedBy?: string }): Promise<UpgradeRequestView> {
    const plan = input.plan;
    if (typeof plan !== 'string' || !(PLAN_IDS as readonly string[]).includes(plan)) {
      const message = `must be one of ${PLAN_IDS.join(', ')}`;
      throw refuse('invalid_request', `plan: ${message}`, 400, [{ field: 'plan', message }]);
    }
    const account = await this.deps.accounts.get(accountId);
    if (!account) throw refuse('account_not_found', `No account ${accountId}.`, 404);
    const wanted = plan as PlanId;
    if (rank(wanted) <= rank(account.plan)) {
      throw refuse('plan_not_higher', `The account is on ${account.plan} already: request a higher plan.`, 409);
    }
    const current = pendingView(account);
    if (current?.plan === wanted) return current;

    const request: StoredUpgradeRequest = {
      plan: wanted,
      status: 'pending',
      requestedAt: new Date(this.deps.clock.now()).toISOString(),
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
