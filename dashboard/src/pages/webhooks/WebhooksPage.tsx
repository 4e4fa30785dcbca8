import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import {
  ActionError, Badge, Card, CopyButton, Form, Notice, PageHeading, QueryState, Time,
} from '../../components/parts';
import { useApp } from '../../context';
import type { Schemas } from '../../types';

const EVENT_TYPES: Schemas['WebhookEventType'][] = ['message.processed', 'message.failed'];

/** A secret shown once: after creating an endpoint or rotating its secret. */
type ShownSecret = { readonly secret: string; readonly why: string } | undefined;

export function WebhooksPage() {
  const { api, accountId } = useApp();
  const queryClient = useQueryClient();
  const webhooks = useQuery({ queryKey: ['webhooks', accountId], queryFn: () => api.webhooks(accountId) });
  const [secret, setSecret] = useState<ShownSecret>();
  const [done, setDone] = useState<string>();
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState(EVENT_TYPES);
  const create = useMutation({
    mutationFn: () => api.createWebhook(accountId, { url: url.trim(), events }),
    onSuccess: async ({ webhook, secret: created }) => {
      setSecret({ secret: created, why: `Signing secret of ${webhook.url}` });
      setDone(undefined);
      setUrl('');
      await queryClient.invalidateQueries({ queryKey: ['webhooks', accountId] });
    },
  });

  return (
    <>
      <PageHeading title="Webhooks">
        <p className="lead">
          We POST a signed event to your endpoints when a message is processed or fails (Standard Webhooks:
          verify it with the secret).
        </p>
      </PageHeading>

      <Card title="Add an endpoint">
        <Form className="inline-form" onSubmit={() => create.mutate()}>
          <div className="field grow">
            <label htmlFor="webhook-url">Endpoint URL</label>
            <input
              id="webhook-url"
              type="url"
              inputMode="url"
              placeholder="https://hooks.example.com/messages"
              value={url}
              onChange={(e) => setUrl(e.target.value)}
            />
          </div>
          <fieldset className="field">
            <legend>Events</legend>
            {EVENT_TYPES.map((type) => (
              <label key={type} className="checkbox">
                <input
                  type="checkbox"
                  checked={events.includes(type)}
                  onChange={(e) => setEvents(e.target.checked ? [...events, type] : events.filter((t) => t !== type))}
                />
                {type}
              </label>
            ))}
          </fieldset>
          <button type="submit" className="button primary" disabled={create.isPending}>
            {create.isPending ? 'Adding…' : 'Add endpoint'}
          </button>
        </Form>
        <ActionError error={create.error} />
      </Card>

      {secret && (
        <Card title={secret.why}>
          <Notice tone="warning" title="Copy it now: it is shown only once.">
            Keep it with your receiver&apos;s configuration; it proves a request came from us.
          </Notice>
          <div className="row">
            <code className="secret" data-testid="webhook-secret">{secret.secret}</code>
            <CopyButton value={secret.secret} label="Copy the signing secret" />
          </div>
          <button type="button" className="button small secondary" onClick={() => setSecret(undefined)}>Done</button>
        </Card>
      )}

      <Card title="Endpoints">
        <div role="status">{done && <Notice tone="success">{done}</Notice>}</div>
        <QueryState query={webhooks} loading="Loading endpoints…" rows={webhooks.data} empty="No endpoints yet.">
          {(rows) => (
            <ul className="list">
              {rows.map((webhook) => (
                <WebhookRow key={webhook.id} webhook={webhook} onSecret={setSecret} onDone={setDone} />
              ))}
            </ul>
          )}
        </QueryState>
      </Card>
    </>
  );
}

function WebhookRow({ webhook, onSecret, onDone }: {
  readonly webhook: Schemas['Webhook'];
  readonly onSecret: (shown: ShownSecret) => void;
  readonly onDone: (text: string) => void;
}) {
  const { api, accountId } = useApp();
  const queryClient = useQueryClient();
  const test = useMutation({
    mutationFn: () => api.testWebhook(accountId, webhook.id),
    onSuccess: (sent) => onDone(`Test event ${sent.eventId} queued for ${webhook.url}.`),
  });
  const rotate = useMutation({
    mutationFn: () => api.rotateWebhookSecret(accountId, webhook.id),
    onSuccess: (rotated) =>
      onSecret({
        secret: rotated.secret,
        why: `New signing secret of ${webhook.url} (the old one signs too until ${new Date(rotated.previousSecretExpiresAt).toLocaleString()})`,
      }),
  });
  const remove = useMutation({
    mutationFn: () => api.removeWebhook(accountId, webhook.id),
    onSuccess: async () => {
      onDone(`Endpoint ${webhook.url} removed.`);
      await queryClient.invalidateQueries({ queryKey: ['webhooks', accountId] });
    },
  });
  const failure = test.error ?? rotate.error ?? remove.error;
  const actions = [
    { text: 'Send test', label: `Send a test event to ${webhook.url}`, mutation: test, disabled: webhook.status !== 'enabled' },
    { text: 'Rotate secret', label: `Rotate the secret of ${webhook.url}`, mutation: rotate },
    {
      text: 'Remove',
      label: `Remove ${webhook.url}`,
      mutation: remove,
      className: 'danger-outline',
      confirm: `Remove ${webhook.url}? It will receive nothing more.`,
    },
  ];
  return (
    <li className="list-item" data-webhook-id={webhook.id}>
      <div className="list-main">
        <p>
          <code>{webhook.url}</code>{' '}
          {webhook.status === 'enabled' ? <Badge tone="success">Enabled</Badge> : <Badge tone="error">Disabled</Badge>}
        </p>
        <p className="muted">
          {webhook.events.join(', ')} · added <Time iso={webhook.createdAt} />
          {webhook.failingSince && <> · failing since <Time iso={webhook.failingSince} /></>}
        </p>
        {webhook.disabledReason && <Notice tone="error" title="Disabled">{webhook.disabledReason}</Notice>}
      </div>
      <div className="actions">
        {actions.map(({ text, label, mutation, disabled, className, confirm }) => (
          <button
            key={text}
            type="button"
            className={`button small ${className ?? 'secondary'}`}
            disabled={disabled || mutation.isPending}
            onClick={() => {
              if (!confirm || window.confirm(confirm)) mutation.mutate();
            }}
            aria-label={label}
          >
            {text}
          </button>
        ))}
      </div>
      <ActionError error={failure} />
    </li>
  );
}
