import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Badge, type BadgeTone, Card, Form, PageHeading, QueryState, Table, Time } from '../../components/parts';
import { useApp } from '../../context';
import { href } from '../../router';
import type { Schemas } from '../../types';

type Status = Schemas['AccountMessage']['status'];

const STATUS_TONE: Record<Status, BadgeTone> = { queued: 'progress', processed: 'success', failed: 'error' };

export function MessageStatus({ status }: { readonly status: Status }) {
  return <Badge tone={STATUS_TONE[status]}>{status}</Badge>;
}

export function MessagesPage() {
  const { api, accountId } = useApp();
  const [status, setStatus] = useState<Status | ''>('');
  const [cursors, setCursors] = useState<readonly string[]>([]);
  const cursor = cursors.at(-1);
  const page = useQuery({
    queryKey: ['messages', accountId, status, cursor ?? ''],
    queryFn: () => api.messages(accountId, { status: status || undefined, cursor }),
  });
  const next = page.data?.nextCursor;
  const [search, setSearch] = useState('');
  const onSearch = () => {
    if (search.trim()) location.hash = href.message(search.trim());
  };

  return (
    <>
      <PageHeading title="Messages">
        <p className="lead">Messages your keys sent, newest first, with what happened to them.</p>
      </PageHeading>
      <Card title="Recent messages">
        <div className="row">
          <Form className="inline-form" onSubmit={onSearch} role="search">
            <div className="field">
              <label htmlFor="message-search">Message id</label>
              <input id="message-search" value={search} placeholder="msg_…" onChange={(e) => setSearch(e.target.value)} />
            </div>
            <button type="submit" className="button secondary">Open</button>
          </Form>
          <div className="field">
            <label htmlFor="message-status">Status</label>
            <select
              id="message-status"
              value={status}
              onChange={(e) => {
                setStatus(e.target.value as Status | '');
                setCursors([]);
              }}
            >
              <option value="">All</option>
              {Object.keys(STATUS_TONE).map((s) => <option key={s} value={s}>{s}</option>)}
            </select>
          </div>
        </div>
        <QueryState
          query={page}
          loading="Loading messages…"
          rows={page.data?.data}
          empty={`No messages${status ? ` ${status}` : ''} yet.`}
        >
          {(rows) => (
            <Table
              caption="Messages, newest first"
              hideCaption
              rows={rows}
              rowKey={(message) => message.id}
              columns={[
                { label: 'Id', cell: (message) => <a href={href.message(message.id)}><code>{message.id}</code></a> },
                { label: 'Status', cell: (message) => <MessageStatus status={message.status} /> },
                { label: 'Created', cell: (message) => <Time iso={message.createdAt} /> },
                { label: 'Message', cell: (message) => message.message, className: 'truncate' },
              ]}
            />
          )}
        </QueryState>
        <div className="row">
          {cursors.length > 0 && (
            <button type="button" className="button small secondary" onClick={() => setCursors(cursors.slice(0, -1))}>
              Newer
            </button>
          )}
          {next && (
            <button type="button" className="button small secondary" onClick={() => setCursors([...cursors, next])}>
              Older
            </button>
          )}
        </div>
      </Card>
    </>
  );
}
