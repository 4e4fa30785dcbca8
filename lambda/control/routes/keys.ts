import { bodyOf, type ControlRoutes, param, reply } from '../control-router.js';

/** An account's API keys, and lifting a key's ban (operators). */
export const keyRoutes: ControlRoutes = (app, { accountService }) => {
  app.post('/accounts/:accountId/keys', [app.allow.account], async (reqCtx) =>
    reply(201, await accountService.createKey(param(reqCtx, 'accountId'), bodyOf(reqCtx).name)));
  app.get('/accounts/:accountId/keys', [app.allow.account], async (reqCtx) =>
    reply(200, { keys: await accountService.listKeys(param(reqCtx, 'accountId')) }));
  app.delete('/accounts/:accountId/keys/:keyId', [app.allow.account], async (reqCtx) =>
    reply(200, await accountService.revokeKey(param(reqCtx, 'accountId'), param(reqCtx, 'keyId'))));
  app.delete('/accounts/:accountId/keys/:keyId/ban', [app.allow.operator], async (reqCtx) =>
    reply(200, await accountService.liftBan(param(reqCtx, 'accountId'), param(reqCtx, 'keyId'))));
};
