import { parseHistoryDays } from '../../usage-history/usage-history.js';
import { type ControlRoutes, param, reply } from '../control-router.js';

/** An account's usage now, and its daily history. */
export const usageRoutes: ControlRoutes = (app, { accountService, usageHistory }) => {
  app.get('/accounts/:accountId/usage', [app.allow.account], async (reqCtx) =>
    reply(200, await accountService.usage(param(reqCtx, 'accountId'))));
  app.get('/accounts/:accountId/usage/history', [app.allow.account], async (reqCtx) => {
    const days = new URL(reqCtx.req.url).searchParams.get('days') ?? undefined;
    return reply(200, await usageHistory.history(param(reqCtx, 'accountId'), parseHistoryDays(days)));
  });
};
