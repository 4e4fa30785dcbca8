import { refuse } from '../../shared/problem.js';
import { bodyOf, type ControlRoutes, param, principal, reply } from '../control-router.js';

/** Upgrade requests: docs/operators/cli.md, "Upgrade requests". */
export const upgradeRoutes: ControlRoutes = (app, { upgradeRequests }) => {
  app.post('/accounts/:accountId/upgrade-request', [app.allow.account], async (reqCtx) => {
    const caller = principal(reqCtx);
    if (caller.kind !== 'owner') {
      throw refuse('forbidden', 'Owners request upgrades; operators change the plan with plans set.', 403);
    }
    const upgradeRequest = await upgradeRequests.request(param(reqCtx, 'accountId'), {
      plan: bodyOf(reqCtx).plan,
      ...(caller.email ? { requestedBy: caller.email } : {}),
    });
    return reply(201, { upgradeRequest });
  });
  app.get('/upgrade-requests', [app.allow.operator], async () => reply(200, { upgradeRequests: await upgradeRequests.pending() }));
};
