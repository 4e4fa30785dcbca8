import { refuse } from '../../shared/problem.js';
import { bodyOf, type ControlRoutes, param, reply } from '../control-router.js';

/** Owners' webhook endpoints (docs/webhooks.md) and the message pages: the log, a message with its deliveries. */
export const webhookRoutes: ControlRoutes = (app, { webhooks }) => {
  if (!webhooks) return;
  const { service, messages } = webhooks;
  const base = '/accounts/:accountId/webhooks';
  const account = [app.allow.account];
  app.post(base, account, async (reqCtx) => reply(201, await service.create(param(reqCtx, 'accountId'), bodyOf(reqCtx))));
  app.get(base, account, async (reqCtx) => reply(200, { webhooks: await service.list(param(reqCtx, 'accountId')) }));
  app.delete(`${base}/:webhookId`, account, async (reqCtx) =>
    reply(200, await service.remove(param(reqCtx, 'accountId'), param(reqCtx, 'webhookId'))));
  app.post(`${base}/:webhookId/rotate-secret`, account, async (reqCtx) =>
    reply(200, await service.rotateSecret(param(reqCtx, 'accountId'), param(reqCtx, 'webhookId'))));
  app.post(`${base}/:webhookId/test`, account, async (reqCtx) =>
    reply(202, await service.sendTest(param(reqCtx, 'accountId'), param(reqCtx, 'webhookId'))));
  app.get(`${base}/:webhookId/test-deliveries`, account, async (reqCtx) =>
    reply(200, { deliveries: await service.testDeliveries(param(reqCtx, 'accountId'), param(reqCtx, 'webhookId')) }));

  app.get('/accounts/:accountId/messages', account, async (reqCtx) => {
    const query = Object.fromEntries(new URL(reqCtx.req.url).searchParams);
    return reply(200, await messages.list(param(reqCtx, 'accountId'), query));
  });
  app.get('/accounts/:accountId/messages/:messageId', account, async (reqCtx) => {
    const [accountId, id] = [param(reqCtx, 'accountId'), param(reqCtx, 'messageId')];
    const [message, deliveries] = await Promise.all([
      messages.get(accountId, id),
      service.messageDeliveries(accountId, id),
    ]);
    if (!message) throw refuse('message_not_found', `No message ${id} in this account.`, 404);
    return reply(200, { ...message, deliveries });
  });
  app.post('/accounts/:accountId/messages/:messageId/deliveries/:deliveryId/resend', account, async (reqCtx) =>
    reply(202, await service.resend(param(reqCtx, 'accountId'), param(reqCtx, 'messageId'), param(reqCtx, 'deliveryId'))));
};
