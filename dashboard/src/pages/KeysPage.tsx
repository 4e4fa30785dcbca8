import { useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useEffect, useId, useRef, useState } from 'react';
import { CopyButton } from '../components/CopyButton';
import { Dialog } from '../components/Dialog';
import { KeyStatus } from '../components/KeyStatus';
import { ActionError, Loading, Notice } from '../components/Notice';
import { PageHeading } from '../components/PageHeading';
import { Time } from '../components/Time';
import { useAction } from '../components/useAction';
import { useNotice } from '../components/useNotice';
import { errorMessage } from '../api';
import { useApp } from '../context';
import { actionStarted } from '../flash';
import { queryKeys } from '../queries';
import type { CreatedKey, Key } from '../types';

export const maskedKey = (key: Pick<Key, 'prefix' | 'last4'>) => `${key.prefix}…${key.last4}`;

export function KeysPage() {
  const { api, me } = useApp();
  const accountId = me.account.accountId;
  const queryClient = useQueryClient();
  // Last uses and bans change with every request the keys make: refreshed every 10 s while visible.
  const keys = useQuery({ queryKey: queryKeys.keys(accountId), queryFn: () => api.keys(accountId) });
  /** A key as a change answered it, at once in the list; then the keys and usage are read again. */
  const changed = (update: (current: Key[]) => Key[]) => {
    queryClient.setQueryData<Key[]>(queryKeys.keys(accountId), (current) => update(current ?? []));
    void queryClient.invalidateQueries({ queryKey: queryKeys.keys(accountId) });
    void queryClient.invalidateQueries({ queryKey: queryKeys.usage(accountId) });
  };
  const [created, setCreated] = useState<CreatedKey>();
  const [revoking, setRevoking] = useState<Key>();
  const [revoked, setRevoked] = useNotice<string>();
  const focusList = useRef(false);

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

      {created ? <NewKeyPanel created={created} onDone={() => setCreated(undefined)} /> : null}

      <section aria-labelledby="keys-heading" className="card">
        <div className="card-head">
          <h2 id="keys-heading" tabIndex={-1}>Your keys</h2>
          <button type="button" className="button small secondary" onClick={() => void keys.refetch()}>Refresh</button>
        </div>
        <div role="status">{revoked ? <Notice tone="success">{revoked}</Notice> : null}</div>
        {keys.error ? <Notice tone="error">{errorMessage(keys.error)}</Notice> : null}
        {keys.isPending ? <Loading label="Loading keys…" /> : null}
        {keys.data && keys.data.length === 0
          ? <p className="empty">No keys yet. Generate one above to send your first message.</p>
          : null}
        {keys.data && keys.data.length > 0
          ? (
              <table className="table responsive">
                <caption className="visually-hidden">API keys, oldest first</caption>
                <thead>
                  <tr>
                    <th scope="col">Name</th>
                    <th scope="col">Key</th>
                    <th scope="col">Status</th>
                    <th scope="col">Created</th>
                    <th scope="col">Last used</th>
                    <th scope="col"><span className="visually-hidden">Actions</span></th>
                  </tr>
                </thead>
                <tbody>
                  {keys.data.map((key) => (
                    <tr key={key.keyId}>
                      <th scope="row" data-label="Name" className="key-name">{key.name}</th>
                      <td data-label="Key"><code className="key-mask">{maskedKey(key)}</code></td>
                      <td data-label="Status"><KeyStatus keyView={key} /></td>
                      <td data-label="Created"><Time iso={key.createdAt} /></td>
                      <td data-label="Last used">{key.lastUsedAt ? <Time iso={key.lastUsedAt} /> : <span className="muted">Never</span>}</td>
                      <td data-label="Actions" className="actions">
                        {key.status === 'active'
                          ? (
                              <button
                                type="button"
                                className="button small danger-outline"
                                aria-label={`Revoke ${key.name} (${maskedKey(key)})`}
                                onClick={() => setRevoking(key)}
                              >
                                Revoke
                              </button>
                            )
                          : null}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )
          : null}
      </section>

      <RevokeDialog
        keyToRevoke={revoking}
        onClose={() => setRevoking(undefined)}
        onClosed={() => {
          if (focusList.current) document.getElementById('keys-heading')?.focus();
          focusList.current = false;
        }}
        onRevoked={(key) => {
          // Its Revoke button is gone: once the dialog has closed, focus goes to the list.
          focusList.current = true;
          setRevoking(undefined);
          setRevoked(`Key ${key.name} (${maskedKey(key)}) is revoked. Requests with it get 401 from now on.`);
          // The revoke answer carries the key's last use; the row keeps the one it had if the answer has none.
          changed((current) =>
            current.map((k) => (k.keyId === key.keyId ? { ...key, lastUsedAt: key.lastUsedAt ?? k.lastUsedAt } : k)));
          if (created?.key.keyId === key.keyId) setCreated(undefined);
        }}
      />
    </>
  );
}

function CreateKeyForm({ onCreated }: { readonly onCreated: (created: CreatedKey) => void }) {
  const { api, me } = useApp();
  const [name, setName] = useState('');
  const { busy, error, setError, run } = useAction();
  const errorId = useId();
  const hintId = useId();

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    actionStarted();
    if (!name.trim()) {
      setError('Give the key a name, e.g. production or laptop.');
      return;
    }
    await run(async () => {
      onCreated(await api.createKey(me.account.accountId, name.trim()));
      setName('');
    });
  };

  return (
    <section aria-labelledby="create-key-heading" className="card">
      <h2 id="create-key-heading">Generate a key</h2>
      <form className="inline-form" onSubmit={(e) => void onSubmit(e)} noValidate>
        <div className="field grow">
          <label htmlFor="key-name">Key name</label>
          <input
            id="key-name"
            value={name}
            maxLength={100}
            autoComplete="off"
            onChange={(e) => setName(e.target.value)}
            aria-describedby={`${hintId}${error ? ` ${errorId}` : ''}`}
            aria-invalid={error ? true : undefined}
          />
          <p className="hint" id={hintId}>A label to recognise it, e.g. production.</p>
        </div>
        <button type="submit" className="button primary" disabled={busy}>{busy ? 'Generating…' : 'Generate key'}</button>
      </form>
      <ActionError message={error} id={errorId} />
    </section>
  );
}

function NewKeyPanel({ created, onDone }: { readonly created: CreatedKey; readonly onDone: () => void }) {
  const { config } = useApp();
  const panel = useRef<HTMLElement>(null);
  // Move focus to the new key once, so screen-reader and keyboard users land on it.
  useEffect(() => panel.current?.focus(), [created.key.keyId]);
  const base = config.messagesApiUrl || '<messages API URL>';
  const curl =
    `curl -X POST ${base}/messages \\\n  -H "Authorization: Bearer ${created.secret}" \\\n` +
    `  -H "Content-Type: application/json" \\\n  -d '{"message": "Hello"}'`;
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
        <div className="code-block">
          <pre><code>{curl}</code></pre>
          <CopyButton value={curl.replace(/\\\n\s*/g, '')} label="Copy the curl command" />
        </div>
      </details>
      <button type="button" className="button secondary" onClick={onDone}>I have stored the key</button>
    </section>
  );
}

function RevokeDialog({
  keyToRevoke,
  onClose,
  onClosed,
  onRevoked,
}: {
  readonly keyToRevoke: Key | undefined;
  readonly onClose: () => void;
  readonly onClosed: () => void;
  readonly onRevoked: (key: Key) => void;
}) {
  const { api, me } = useApp();
  const { busy, error, setError, run } = useAction();
  const close = () => {
    setError(undefined);
    onClose();
  };
  const revoke = async () => {
    if (!keyToRevoke) return;
    await run(async () => onRevoked(await api.revokeKey(me.account.accountId, keyToRevoke.keyId)));
  };
  return (
    <Dialog
      open={keyToRevoke !== undefined}
      title={`Revoke the key “${keyToRevoke?.name ?? ''}”?`}
      onClose={close}
      onClosed={onClosed}
      footer={(
        <>
          <button type="button" className="button secondary" onClick={close} autoFocus>Cancel</button>
          <button type="button" className="button danger" disabled={busy} onClick={() => void revoke()}>
            {busy ? 'Revoking…' : 'Revoke key'}
          </button>
        </>
      )}
    >
      {keyToRevoke
        ? (
            <>
              <p>
                Requests with <code>{maskedKey(keyToRevoke)}</code> will be refused (401 Unauthorized) from the next
                request on. This cannot be undone.
              </p>
              <ActionError message={error} />
            </>
          )
        : null}
    </Dialog>
  );
}
