import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import {
  ActionError, Badge, Card, type Column, CopyButton, Form, Notice, PageHeading, QueryState, Table, Time,
} from '../components/parts';
import { Dialog } from '../components/Dialog';
import { useAction, useNotice } from '../flash';
import { useApp } from '../context';
import { queryKeys } from '../queries';
import type { Key, Schemas } from '../types';
import { CodeBlock, singleSend } from './overview/curl';

type CreatedKey = Schemas['CreatedKey'];

export const maskedKey = (key: Pick<Key, 'prefix' | 'last4'>) => `${key.prefix}…${key.last4}`;

/** A key's status as the Messages API treats it now: Revoked (for good), Banned (until the ban ends), or Active. */
function KeyStatus({ keyView }: { readonly keyView: Key }) {
  if (keyView.status === 'revoked') {
    return (
      <>
        <Badge tone="neutral">Revoked</Badge>
        {keyView.revokedAt && <span className="hint block"><Time iso={keyView.revokedAt} /></span>}
      </>
    );
  }
  if (keyView.bannedUntil) {
    // The only ban there is: the rate limiter's (lambda/keys).
    return (
      <>
        <Badge tone="error">Banned</Badge>
        <span className="hint block key-ban">
          Rate-limit ban: it kept sending after 429 answers. Refused until <Time iso={keyView.bannedUntil} />.
        </span>
      </>
    );
  }
  return <Badge tone="success">Active</Badge>;
}

export const keyMaskColumn: Column<Pick<Key, 'prefix' | 'last4'>> = {
  label: 'Key',
  cell: (key) => <code className="key-mask">{maskedKey(key)}</code>,
};

export const keyColumns: readonly Column<Key>[] = [
  { label: 'Name', cell: (key) => key.name, className: 'key-name' },
  keyMaskColumn,
  { label: 'Status', cell: (key) => <KeyStatus keyView={key} /> },
];

export const lastUsed = (key: Pick<Key, 'lastUsedAt'>) =>
  key.lastUsedAt ? <Time iso={key.lastUsedAt} /> : <span className="muted">Never</span>;

export function KeysPage() {
  const { api, accountId } = useApp();
  const queryClient = useQueryClient();
  const keys = useQuery({ queryKey: queryKeys.keys(accountId), queryFn: () => api.keys(accountId) });
  // A key as a change answered it shows at once; then the keys and usage are read again.
  const changed = (update: (current: Key[]) => Key[]) => {
    queryClient.setQueryData<Key[]>(queryKeys.keys(accountId), (current) => update(current ?? []));
    void queryClient.invalidateQueries({ queryKey: queryKeys.keys(accountId) });
    void queryClient.invalidateQueries({ queryKey: queryKeys.usage(accountId) });
  };
  const [created, setCreated] = useState<CreatedKey>();
  const [revoking, setRevoking] = useState<Key>();
  const [revoked, setRevoked] = useNotice<string>();
  const revoke = useAction();
  const onRevoke = async () => {
    if (!revoking) return;
    const key = await api.revokeKey(accountId, revoking.keyId);
    setRevoking(undefined);
    setRevoked(`Key ${key.name} (${maskedKey(key)}) is revoked. Requests with it get 401 from now on.`);
    // The row keeps the last use it had if the revoke answer has none.
    changed((current) =>
      current.map((k) => (k.keyId === key.keyId ? { ...key, lastUsedAt: key.lastUsedAt ?? k.lastUsedAt } : k)));
    if (created?.key.keyId === key.keyId) setCreated(undefined);
  };

  return (
    <>
      <PageHeading title="API keys">
        <p className="lead">
          Keys authenticate requests to the Messages API: send <code>Authorization: Bearer &lt;key&gt;</code>.
        </p>
      </PageHeading>

      <CreateKeyForm
        onCreated={(result) => {
          setCreated(result);
          changed((current) => [...current, result.key]);
        }}
      />

      {created && <NewKeyPanel created={created} onDone={() => setCreated(undefined)} />}

      <Card title="Your keys" id="keys-heading" refresh={() => void keys.refetch()}>
        <div role="status">{revoked && <Notice tone="success">{revoked}</Notice>}</div>
        <QueryState
          query={keys}
          loading="Loading keys…"
          rows={keys.data}
          empty="No keys yet. Generate one above to send your first message."
        >
          {(rows) => (
            <Table
              caption="API keys, oldest first"
              hideCaption
              rows={rows}
              rowKey={(key) => key.keyId}
              columns={[
                ...keyColumns,
                { label: 'Created', cell: (key) => <Time iso={key.createdAt} /> },
                { label: 'Last used', cell: lastUsed },
              ]}
              actions={(key) => key.status === 'active' && (
                <button
                  type="button"
                  className="button small danger-outline"
                  aria-label={`Revoke ${key.name} (${maskedKey(key)})`}
                  onClick={() => setRevoking(key)}
                >
                  Revoke
                </button>
              )}
            />
          )}
        </QueryState>
      </Card>

      <Dialog
        open={revoking !== undefined}
        title={`Revoke the key “${revoking?.name ?? ''}”?`}
        onClose={() => setRevoking(undefined)}
        fallbackFocus="keys-heading"
        action={revoke}
        confirm="Revoke key"
        busyLabel="Revoking…"
        onConfirm={onRevoke}
      >
        <p>
          Requests with <code>{revoking ? maskedKey(revoking) : ''}</code> will be refused (401 Unauthorized) from the
          next request on. This cannot be undone.
        </p>
      </Dialog>
    </>
  );
}

function CreateKeyForm({ onCreated }: { readonly onCreated: (created: CreatedKey) => void }) {
  const { api, accountId } = useApp();
  const [name, setName] = useState('');
  const { busy, error, refuse, run } = useAction();

  const onSubmit = async () => {
    if (!name.trim()) return refuse('Give the key a name, e.g. production or laptop.');
    await run(async () => {
      onCreated(await api.createKey(accountId, name.trim()));
      setName('');
    });
  };

  return (
    <Card title="Generate a key">
      <Form className="inline-form" onSubmit={onSubmit}>
        <div className="field grow">
          <label htmlFor="key-name">Key name</label>
          <input
            id="key-name"
            value={name}
            maxLength={100}
            autoComplete="off"
            onChange={(e) => setName(e.target.value)}
            aria-describedby={`key-name-hint${error ? ' key-name-error' : ''}`}
            aria-invalid={error ? true : undefined}
          />
          <p className="hint" id="key-name-hint">A label to recognise it, e.g. production.</p>
        </div>
        <button type="submit" className="button primary" disabled={busy}>{busy ? 'Generating…' : 'Generate key'}</button>
      </Form>
      <ActionError error={error} id="key-name-error" />
    </Card>
  );
}

function NewKeyPanel({ created, onDone }: { readonly created: CreatedKey; readonly onDone: () => void }) {
  const { config } = useApp();
  const panel = useRef<HTMLElement>(null);
  // Focus lands on the new key once, for screen-reader and keyboard users.
  useEffect(() => panel.current?.focus(), [created.key.keyId]);
  return (
    <section aria-labelledby="new-key-heading" className="card new-key" tabIndex={-1} ref={panel}>
      <h2 id="new-key-heading">New key “{created.key.name}”</h2>
      <Notice tone="warning" title="Copy this key now: it will not be shown again.">
        <p>
          Only a hash of it is stored, so nobody can show it to you later. If you lose it, revoke it and generate a
          new one.
        </p>
      </Notice>
      <div className="field">
        <label htmlFor="new-key-secret">Secret key</label>
        <div className="with-button">
          <input
            id="new-key-secret"
            className="mono"
            readOnly
            value={created.secret}
            onFocus={(e) => e.currentTarget.select()}
          />
          <CopyButton value={created.secret} label="Copy the secret key" />
        </div>
      </div>
      <details>
        <summary>Send a test message with curl</summary>
        <CodeBlock
          example={singleSend(config.messagesApiUrl || '<messages API URL>', created.secret)}
          label="Copy the curl command"
        />
      </details>
      <button type="button" className="button secondary" onClick={onDone}>I have stored the key</button>
    </section>
  );
}
