import { bodyOf, type ControlContext, type ControlRoutes, param, type Principal, principal, reply } from '../control-router.js';

/** The account and project of a `/accounts/:accountId/projects/:projectId/...` route. */
export const projectOf = (reqCtx: ControlContext) => [param(reqCtx, 'accountId'), param(reqCtx, 'projectId')] as const;

/** Who started a deploy, as its history shows it. */
const deployedBy = (caller: Principal) => (caller.kind === 'owner' ? (caller.email ?? caller.ownerId) : 'operator');

/** An account's projects and their deploys: docs/projects.md. */
export const projectRoutes: ControlRoutes = (app, { projects, deploys }) => {
  const project = '/accounts/:accountId/projects/:projectId';
  app.post('/accounts/:accountId/projects', [app.allow.account], async (reqCtx) => {
    const { slug, name } = bodyOf(reqCtx);
    return reply(201, await projects.createProject(param(reqCtx, 'accountId'), { slug, name }));
  });
  app.get('/accounts/:accountId/projects', [app.allow.account], async (reqCtx) =>
    reply(200, { projects: await projects.listProjects(param(reqCtx, 'accountId')) }));
  app.get(project, [app.allow.account], async (reqCtx) => reply(200, await projects.getProject(...projectOf(reqCtx))));
  app.patch(project, [app.allow.account], async (reqCtx) =>
    reply(200, await projects.renameProject(...projectOf(reqCtx), { name: bodyOf(reqCtx).name })));
  app.delete(project, [app.allow.account], async (reqCtx) =>
    reply(200, await projects.deleteProject(...projectOf(reqCtx))));

  app.post(`${project}/deploys`, [app.allow.account], async (reqCtx) => {
    const by = deployedBy(principal(reqCtx));
    return reply(201, await deploys.startDeploy(...projectOf(reqCtx), { files: bodyOf(reqCtx).files }, by));
  });
  app.get(`${project}/deploys`, [app.allow.account], async (reqCtx) =>
    reply(200, { deploys: await deploys.listDeploys(...projectOf(reqCtx)) }));
  app.post(`${project}/deploys/:deployId/finalize`, [app.allow.account], async (reqCtx) =>
    reply(200, await deploys.finalizeDeploy(...projectOf(reqCtx), param(reqCtx, 'deployId'))));
  app.post(`${project}/deploys/:deployId/rollback`, [app.allow.account], async (reqCtx) =>
    reply(200, await deploys.rollback(...projectOf(reqCtx), param(reqCtx, 'deployId'))));
};
