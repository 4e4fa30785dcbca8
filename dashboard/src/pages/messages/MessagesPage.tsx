import { useQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { errorMessage } from '../../api';
import { Badge, type BadgeTone } from '../../components/Badge';
import { Loading, Notice } from '../../components/Notice';
import { PageHeading } from '../../components/PageHeading';
import { Time } from '../../components/Time';
import { useApp } from '../../context';
import { href } from '../../router';
import { type AccountMessage, messagesApi } from '../webhooks/webhooks-api';
import '../webhooks/webhooks.css';

const STATUSES = ['queued', 'processed', 'failed'] as const;
const STATUS_TONE: Record<AccountMessage['status'], BadgeTone> = { queued: 'progress', processed: 'success', failed: 'error' };

export function MessageStatus({ status }: { readonly status: AccountMessage['status'] }) {
  return <Badge tone={STATUS_TONE[status]}>{status}</Badge>;
}

/** Messages: the account's recent messages, newest first, by status; a message is opened by id. */
export function MessagesPage() {
  const { api, me } = useApp();
  const accountId = me.account.accountId;
  const [status, setStatus] = useState<string>('');
  const [cursors, setCursors] = useState<readonly string[]>([]);
  const cursor = cursors.at(-1);
  const page = useQuery({
    queryKey: ['messages', accountId, status, cursor ?? ''],
    queryFn: () =>
      messagesApi.list(api, accountId, {
        ...(status ? { status: status as AccountMessage['status'] } : {}),
        ...(cursor ? { cursor } : {}),
      }),
  });
  const [search, setSearch] = useState('');
  const onSearch = (event: FormEvent) => {
    event.preventDefault();
    if (search.trim()) location.hash = href.message(search.trim());
  };

  return (
    <>
      <PageHeading title="Messages">
        <p className="lead">Messages your keys sent, newest first, with what happened to them.</p>
      </PageHeading>
      <section aria-labelledby="messages-heading" className="card">
        <h2 id="messages-heading">Recent messages</h2>
        <div className="row">
          <form className="inline-form" onSubmit={onSearch} role="search">
            <div className="field">
              <label htmlFor="message-search">Message id</label>
              <input id="message-search" value={search} placeholder="msg_…" onChange={(e) => setSearch(e.target.value)} />
            </div>
            <button type="submit" className="button secondary">Open</button>
          </form>
          <div className="field">
            <label htmlFor="message-status">Status</label>
            <select
              id="message-status"
              value={status}
              onChange={(e) => {
                setStatus(e.target.value);
                setCursors([]);
              }}
            >
              <option value="">All</option>
              {STATUSES.map((s) => <option key={s} value={s}>{s}</option>)}
            </select>
          </div>
        </div>
        {page.error ? <Notice tone="error">{errorMessage(page.error)}</Notice> : null}
        {page.isPending ? <Loading label="Loading messages…" /> : null}
        {page.data && page.data.data.length === 0 ? <p className="empty">No messages{status ? ` ${status}` : ''} yet.</p> : null}
        {page.data && page.data.data.length > 0
          ? (
              <table className="table responsive">
                <caption className="visually-hidden">Messages, newest first</caption>
                <thead>
                  <tr>
                    <th scope="col">Id</th>
                    <th scope="col">Status</th>
                    <th scope="col">Created</th>
                    <th scope="col">Message</th>
                  </tr>
                </thead>
                <tbody>
                  {page.data.data.map((message) => (
                    <tr key={message.id}>
                      <th scope="row" data-label="Id"><a href={href.message(message.id)}><code>{message.id}</code></a></th>
                      <td data-label="Status"><MessageStatus status={message.status} /></td>
                      <td data-label="Created"><Time iso={message.createdAt} /></td>
                      <td data-label="Message" className="truncate">{message.message}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )
          : null}
        <div className="row">
          {cursors.length > 0
            ? (
                <button type="button" className="button small secondary" onClick={() => setCursors(cursors.slice(0, -1))}>
                  Newer
                </button>
              )
            : null}
          {page.data?.nextCursor
            ? (
                <button
                  type="button"
                  className="button small secondary"
                  onClick={() => setCursors([...cursors, page.data.nextCursor as string])}
                >
                  Older
                </button>
              )
            : null}
        </div>
      </section>
    </>
  );
}
