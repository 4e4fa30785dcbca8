import { bodyOf, type ControlContext, type ControlRoutes, param, reply } from '../control-router.js';
import { projectOf } from './projects.js';

const PROJECT = '/accounts/:accountId/projects/:projectId';

/** A project's custom domains, its domain configuration (primary, redirects), and the drift check. */
export const domainRoutes: ControlRoutes = (app, { domains }) => {
  const domainOf = (reqCtx: ControlContext) => [...projectOf(reqCtx), param(reqCtx, 'domain')] as const;
  app.get(`${PROJECT}/domains`, [app.allow.account], async (reqCtx) =>
    reply(200, { domains: await domains.list(...projectOf(reqCtx)) }));
  app.post(`${PROJECT}/domains`, [app.allow.account], async (reqCtx) =>
    reply(201, await domains.add(...projectOf(reqCtx), bodyOf(reqCtx).domain)));
  app.get(`${PROJECT}/domains/:domain`, [app.allow.account], async (reqCtx) =>
    reply(200, await domains.get(...domainOf(reqCtx))));
  // Re-verify is Verify again, for a domain that failed or drifted: both start the domain flow.
  app.post(`${PROJECT}/domains/:domain/verify`, [app.allow.account], async (reqCtx) =>
    reply(202, await domains.verify(...domainOf(reqCtx))));
  app.post(`${PROJECT}/domains/:domain/reverify`, [app.allow.account], async (reqCtx) =>
    reply(202, await domains.verify(...domainOf(reqCtx))));
  app.delete(`${PROJECT}/domains/:domain`, [app.allow.account], async (reqCtx) =>
    reply(200, await domains.remove(...domainOf(reqCtx))));
  app.put(`${PROJECT}/domain-config/primary`, [app.allow.account], async (reqCtx) => {
    const { domain } = bodyOf(reqCtx);
    return reply(200, await domains.setPrimary(...projectOf(reqCtx), typeof domain === 'string' ? domain : ''));
  });
  app.post(`${PROJECT}/domain-config/redirects`, [app.allow.account], async (reqCtx) => {
    const { from, to, status } = bodyOf(reqCtx);
    return reply(200, await domains.addRedirect(...projectOf(reqCtx), { from, to, status }));
  });
  app.delete(`${PROJECT}/domain-config/redirects/:from`, [app.allow.account], async (reqCtx) =>
    reply(200, await domains.removeRedirect(...projectOf(reqCtx), param(reqCtx, 'from'))));

  // The drift check of every live domain runs on a schedule; operators can start one now.
  app.post('/maintenance/domain-drift-check', [app.allow.operator], async () => reply(202, await domains.checkDrift()));
};
