import { PLAN_IDS, type RuntimeConfig } from '../../../contracts/plans.js';
import { refuse } from '../../shared/problem.js';
import { bodyOf, type ControlRoutes, param, principal, reply } from '../control-router.js';

/** Plans as customers see them: limits, and which features need which plan. */
export function planCatalogue(config: RuntimeConfig) {
  return PLAN_IDS.map((id) => {
    const plan = config.plans[id];
    return {
      id,
      displayName: plan.displayName,
      limits: plan.limits,
      customLimits: plan.customLimits,
      customDomains: plan.customDomains,
    };
  });
}

/** The signed-in owner, the plan catalogue, accounts and their plans. */
export const accountRoutes: ControlRoutes = (app, { accountService, owners, config }) => {
  app.get('/me', [app.allow.owner], async (reqCtx) => {
    const owner = principal(reqCtx);
    if (owner.kind !== 'owner') throw refuse('not_found', 'This resource belongs to signed-in owners.', 404);
    const accountId = await owners.ensureAccount(owner);
    return reply(200, {
      ownerId: owner.ownerId,
      ...(owner.email ? { email: owner.email } : {}),
      account: await accountService.getAccount(accountId),
    });
  });
  app.get('/plans', () => reply(200, { plans: planCatalogue(config) }));

  app.post('/accounts', [app.allow.operator], async (reqCtx) => {
    const { name, plan, limits } = bodyOf(reqCtx);
    return reply(201, await accountService.createAccount({ name, plan, limits }));
  });
  app.get('/accounts/:accountId', [app.allow.account], async (reqCtx) =>
    reply(200, await accountService.getAccount(param(reqCtx, 'accountId'))));
  app.put('/accounts/:accountId/plan', [app.allow.operator], async (reqCtx) => {
    const { plan, limits } = bodyOf(reqCtx);
    return reply(200, await accountService.setPlan(param(reqCtx, 'accountId'), { plan, limits }));
  });
};
