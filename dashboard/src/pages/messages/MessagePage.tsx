import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ActionError, Badge, type BadgeTone, Card, PageHeading, QueryState, Table, Time } from '../../components/parts';
import { useApp } from '../../context';
import { href } from '../../router';
import type { Schemas } from '../../types';
import { MessageStatus } from './MessagesPage';

const DELIVERY_TONE: Record<Schemas['WebhookDelivery']['status'], BadgeTone> =
  { pending: 'progress', succeeded: 'success', failed: 'error', abandoned: 'warning' };

export function MessagePage({ messageId }: { readonly messageId: string }) {
  const { api, accountId } = useApp();
  const message = useQuery({
    queryKey: ['message', accountId, messageId],
    queryFn: () => api.message(accountId, messageId),
  });
  const m = message.data;
  return (
    <>
      <PageHeading title={`Message ${messageId}`}>
        <p><a href={href.messages}>← All messages</a></p>
      </PageHeading>
      <QueryState query={message} loading="Loading the message…" />
      {m && (
        <>
          <Card title="Message">
            <dl className="facts">
              <dt>Status</dt>
              <dd><MessageStatus status={m.status} /></dd>
              <dt>Created</dt>
              <dd><Time iso={m.createdAt} /></dd>
              {m.processedAt && <><dt>Processed</dt><dd><Time iso={m.processedAt} /></dd></>}
              {m.failedAt && <><dt>Failed</dt><dd><Time iso={m.failedAt} /></dd></>}
              {m.attempts !== undefined && <><dt>Attempts</dt><dd>{m.attempts}</dd></>}
              {m.result !== undefined && <><dt>Result</dt><dd><code>{JSON.stringify(m.result)}</code></dd></>}
              {m.lastError && <><dt>Last error</dt><dd>{m.lastError}</dd></>}
              <dt>Message</dt>
              <dd><pre className="message-body">{m.message}</pre></dd>
            </dl>
          </Card>
          <Card title="Webhook deliveries">
            <QueryState rows={m.deliveries} empty="No webhook deliveries for this message.">
              {(rows) => (
                <ul className="list">
                  {rows.map((d) => <DeliveryItem key={d.id} messageId={messageId} delivery={d} />)}
                </ul>
              )}
            </QueryState>
          </Card>
        </>
      )}
    </>
  );
}

function DeliveryItem({ messageId, delivery }: Readonly<{ messageId: string; delivery: Schemas['WebhookDelivery'] }>) {
  const { api, accountId } = useApp();
  const queryClient = useQueryClient();
  const resend = useMutation({
    mutationFn: () => api.resendDelivery(accountId, messageId, delivery.id),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['message', accountId, messageId] }),
  });
  return (
    <li className="list-item" data-delivery-id={delivery.id}>
      <div className="list-main">
        <p>
          <code>{delivery.type}</code> to <code>{delivery.url}</code>{' '}
          <Badge tone={DELIVERY_TONE[delivery.status]}>{delivery.status}</Badge>
          {delivery.reason && <span className="muted"> ({delivery.reason})</span>}
        </p>
        {delivery.nextAttemptAt && <p className="muted">Next attempt <Time iso={delivery.nextAttemptAt} /></p>}
        <Table
          caption="Attempts of this delivery"
          hideCaption
          rows={delivery.attempts}
          rowKey={(attempt) => attempt.attempt}
          columns={[
            { label: 'Attempt', cell: (attempt) => attempt.attempt },
            { label: 'Time', cell: (attempt) => <Time iso={attempt.at} /> },
            { label: 'Status code', cell: (attempt) => attempt.statusCode ?? '—' },
            { label: 'Duration', cell: (attempt) => `${attempt.durationMs} ms` },
            { label: 'Error', cell: (attempt) => attempt.error ?? '—' },
          ]}
        />
      </div>
      <div className="actions">
        <button
          type="button"
          className="button small secondary"
          disabled={resend.isPending}
          onClick={() => resend.mutate()}
          aria-label={`Re-send ${delivery.type} to ${delivery.url}`}
        >
          {resend.isPending ? 'Re-sending…' : 'Re-send'}
        </button>
      </div>
      <ActionError error={resend.error} />
      {resend.isSuccess && <p role="status" className="muted">Queued again; the new attempt appears here shortly.</p>}
    </li>
  );
}
