import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { errorMessage } from '../../api';
import { ActionError, LongValue, Notice, Time } from '../../components/parts';
import { useAction } from '../../flash';
import { useApp } from '../../context';
import { formatBytes, formatNumber } from '../../format';
import { queryKeys } from '../../queries';
import type { Project, Schemas } from '../../types';

type DeployListing = Schemas['DeployListing'];

const STATE_LABELS: Record<DeployListing['state'], string> = {
  in_progress: 'In progress',
  succeeded: 'Succeeded',
  failed: 'Failed',
};

/** The project's last 20 deploys, newest first; rolling back serves an earlier one again with no upload. */
export function DeployHistory({ project }: { readonly project: Project }) {
  const { api, accountId } = useApp();
  const queryClient = useQueryClient();
  const key = queryKeys.deploys(accountId, project.projectId);
  const deploys = useQuery({ queryKey: key, queryFn: () => api.deploys(accountId, project.projectId) });
  const { busy, error, run } = useAction();
  const [rolledBack, setRolledBack] = useState<DeployListing>();

  const rollback = (deploy: DeployListing) =>
    run(async () => {
      const live = await api.rollback(accountId, project.projectId, deploy.deployId);
      setRolledBack(live);
      const markLive = (list: DeployListing[] | undefined) =>
        list?.map((d) => ({ ...d, live: d.deployId === live.deployId }));
      queryClient.setQueryData<DeployListing[]>(key, markLive);
      void queryClient.invalidateQueries({ queryKey: key });
      void queryClient.invalidateQueries({ queryKey: queryKeys.project(accountId, project.projectId) });
    });

  if (deploys.error) return <Notice tone="error">{errorMessage(deploys.error)}</Notice>;
  const list = deploys.data ?? [];
  if (list.length === 0) return null;
  return (
    <div className="deploy-history" role="group" aria-labelledby="history-heading">
      <h3 id="history-heading">Deploy history</h3>
      <p className="hint">The last 20 deploys are kept. Rolling back serves an earlier deploy again at once, with no upload.</p>
      {rolledBack && <Notice tone="success" live>Rolled back: {rolledBack.deployId} is live again.</Notice>}
      <ActionError error={error} />
      <ol className="deploy-list" aria-label={`Deploys of ${project.name}, newest first`}>
        {list.map((d) => (
          <li key={d.deployId} className={`deploy-item${d.live ? ' live' : ''}`}>
            <p className="deploy-item-head">
              <code><LongValue value={d.deployId} /></code>
              <span className="badge">{d.live ? 'Live' : STATE_LABELS[d.state]}</span>
            </p>
            <dl className="facts compact">
              <div><dt>Started</dt><dd><Time iso={d.startedAt} /></dd></div>
              <div><dt>By</dt><dd><LongValue value={d.by} /></dd></div>
              <div><dt>Files</dt><dd>{formatNumber(d.fileCount)} ({formatBytes(d.bytes)})</dd></div>
              <div><dt>Uploaded</dt><dd>{formatNumber(d.uploadCount)} ({formatBytes(d.uploadBytes)})</dd></div>
            </dl>
            {d.state === 'succeeded' && !d.live && (
              <button
                type="button"
                className="button small secondary"
                disabled={busy}
                aria-label={`Roll back to ${d.deployId}`}
                onClick={() => void rollback(d)}
              >
                Roll back
              </button>
            )}
          </li>
        ))}
      </ol>
    </div>
  );
}
