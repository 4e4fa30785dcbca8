import type { DeployFile } from '../../projects/project-service.js';
import { refuse } from '../../shared/problem.js';
import { bodyOf, type ControlContext, type ControlRoutes, param, reply } from '../control-router.js';

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** `files: [{ path, content }]` with base64 content, as the CLI sends a folder. */
function deployFiles(value: unknown): DeployFile[] {
  if (!Array.isArray(value)) throw refuse('invalid_request', 'files must be a list of {path, content (base64)}.', 400);
  return value.map((file: unknown) => {
    const { path, content } = (file ?? {}) as { path?: unknown; content?: unknown };
    if (typeof path !== 'string' || typeof content !== 'string' || !BASE64.test(content)) {
      throw refuse('invalid_request', 'Each file needs a path and base64 content.', 400);
    }
    return { path, body: Buffer.from(content, 'base64') };
  });
}

/** The account and project of a `/accounts/:accountId/projects/:projectId/...` route. */
export const projectOf = (reqCtx: ControlContext) => [param(reqCtx, 'accountId'), param(reqCtx, 'projectId')] as const;

/** An account's projects and their deploys. */
export const projectRoutes: ControlRoutes = (app, { projects }) => {
  app.post('/accounts/:accountId/projects', [app.allow.account], async (reqCtx) => {
    const { slug, name } = bodyOf(reqCtx);
    return reply(201, await projects.createProject(param(reqCtx, 'accountId'), { slug, name }));
  });
  app.get('/accounts/:accountId/projects', [app.allow.account], async (reqCtx) =>
    reply(200, { projects: await projects.listProjects(param(reqCtx, 'accountId')) }));
  app.get('/accounts/:accountId/projects/:projectId', [app.allow.account], async (reqCtx) =>
    reply(200, await projects.getProject(...projectOf(reqCtx))));
  app.post('/accounts/:accountId/projects/:projectId/deploys', [app.allow.account], async (reqCtx) =>
    reply(201, await projects.deploy(...projectOf(reqCtx), deployFiles(bodyOf(reqCtx).files))));
};
