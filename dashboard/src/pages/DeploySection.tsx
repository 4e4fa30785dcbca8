import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type ChangeEvent, type ReactNode, type RefObject, useId, useRef, useState } from 'react';
import { ApiError, errorMessage } from '../api';
import { ActionError, Form, LongValue, Notice, Time } from '../components/parts';
import { PlatformUrl } from '../components/PlatformUrl';
import { useApp } from '../context';
import { actionStarted } from '../flash';
import { type DeployCalls, deploySite, type DeployProgress } from '../../../contracts/deploys';
import { limitMb, MAX_DEPLOY_BYTES, MAX_FILE_BYTES, MAX_FILES, readFiles, type Selection, selectFiles } from '../deploy-files';
import { formatBytes, formatNumber } from '../format';
import { queryKeys } from '../queries';
import type { Deploy, Project } from '../types';
import { DeployBadge } from './project-parts';

/** How many chosen files are listed by name (the count and size cover them all). */
const LISTED = 100;

const plural = (n: number, one: string, many = `${one}s`) => `${formatNumber(n)} ${n === 1 ? one : many}`;

/** Deploys a site from the browser as the CLI does (contracts/deploys.ts): only files the platform lacks are sent. */
export function DeploySection({ project }: { readonly project: Project }) {
  const { api, accountId } = useApp();
  const queryClient = useQueryClient();
  const [selection, setSelection] = useState<Selection>();
  // Where a running deploy is: reading the files, then comparing (no progress yet) and uploading.
  const [step, setStep] = useState<{ readonly read: number; readonly total: number } | DeployProgress>();
  const [refusal, setRefusal] = useState<string>();
  const folderInput = useRef<HTMLInputElement | null>(null);
  const hintId = useId();
  const problemsId = useId();
  const nothingId = useId();
  const deploy = useMutation({
    mutationFn: async (files: Selection['files']) => {
      setStep({ read: 0, total: files.length });
      const read = await readFiles(files, (done) => setStep({ read: done, total: files.length }));
      setStep(undefined);
      const calls: DeployCalls = {
        start: (manifest) => api.startDeploy(accountId, project.projectId, manifest),
        finalize: (deployId) => api.finalizeDeploy(accountId, project.projectId, deployId),
      };
      const outcome = await deploySite(calls, read, { onProgress: setStep });
      const deployed = await api.project(accountId, project.projectId);
      const { skipped, uploadedFiles: uploaded } = outcome;
      return { project: deployed, deploy: outcome.deploy as Deploy, skipped, uploaded };
    },
    onSuccess: ({ project: deployed }) => {
      queryClient.setQueryData(queryKeys.project(accountId, project.projectId), deployed);
      setSelection(undefined);
    },
    // A failed deploy may be recorded too. (Not awaited: the outcome shows at once.)
    onSettled: () => {
      void queryClient.invalidateQueries({ queryKey: queryKeys.project(accountId, project.projectId) });
      void queryClient.invalidateQueries({ queryKey: queryKeys.deploys(accountId, project.projectId) });
    },
  });
  const busy = deploy.isPending;

  const onChoose = (event: ChangeEvent<HTMLInputElement>) => {
    const chosen = Array.from(event.target.files ?? []);
    // Cleared so that choosing the same folder again (after a rebuild) is a change too.
    event.target.value = '';
    if (chosen.length === 0) return;
    setSelection(selectFiles(chosen));
    deploy.reset();
    setRefusal(undefined);
  };

  const onSubmit = () => {
    if (busy) return;
    actionStarted();
    if (!selection) {
      setRefusal('Choose your site’s folder (or its files) first.');
      folderInput.current?.focus();
      return;
    }
    if (selection.problems.length > 0) return setRefusal('This selection cannot be deployed: see why above.');
    setRefusal(undefined);
    deploy.mutate(selection.files);
  };

  const status = ((): string => {
    if (busy && !step) return 'Deploying… comparing with the files already stored.';
    if (busy && step && 'read' in step) return `Deploying… reading files (${formatNumber(step.read)} of ${formatNumber(step.total)})`;
    if (busy && step && 'uploadFiles' in step) {
      return `Deploying… uploaded ${formatNumber(step.uploadedFiles)} of ${plural(step.uploadFiles, 'changed file')} ` +
        `(${formatBytes(step.uploadedBytes)} of ${formatBytes(step.uploadBytes)}); the live version changes once every file is stored.`;
    }
    if (deploy.data) return `Deploy succeeded. Your site is live at ${deploy.data.project.url}`;
    if (deploy.error) return 'The deploy failed.';
    return selection ? `${plural(selection.files.length, 'file')} chosen, ${formatBytes(selection.totalBytes)}.` : '';
  })();

  return (
    <div className="deploy-new" aria-labelledby="new-deploy-heading" role="group">
      <h3 id="new-deploy-heading">Deploy a new version</h3>
      <p className="hint" id={hintId}>
        Choose your site’s folder (your build output, e.g. <code>dist</code>) or its files. It needs an{' '}
        <code>index.html</code> at its top level. A deploy has at most {formatNumber(MAX_FILES)} files,{' '}
        {limitMb(MAX_FILE_BYTES)} per file and {limitMb(MAX_DEPLOY_BYTES)} in all; files that did not change
        since an earlier deploy are not uploaded again. The live version changes only when the whole deploy succeeds.
      </p>
      <Form onSubmit={onSubmit}>
        <div className="file-pickers">
          <FilePicker id="deploy-folder" folder={folderInput} describedBy={hintId} disabled={busy} onChange={onChoose}>
            <svg aria-hidden="true" width="16" height="16" viewBox="0 0 16 16" fill="none" stroke="currentColor" strokeWidth="1.5">
              <path d="M1.75 4.25a1 1 0 0 1 1-1h3.5l1.5 1.75h5.5a1 1 0 0 1 1 1v6.75a1 1 0 0 1-1 1H2.75a1 1 0 0 1-1-1z" />
            </svg>
            {' '}Choose a folder
          </FilePicker>
          <FilePicker id="deploy-files" describedBy={hintId} disabled={busy} onChange={onChoose}>Choose files</FilePicker>
        </div>

        {selection && <SelectionSummary selection={selection} problemsId={problemsId} />}

        <p className="row deploy-actions">
          <button
            type="submit"
            className="button primary"
            // Focusable while unavailable (aria-disabled, not disabled): the hint beside it says why.
            aria-disabled={busy || !selection ? true : undefined}
            aria-describedby={!selection ? nothingId : selection.problems.length > 0 ? problemsId : undefined}
          >
            {busy ? 'Deploying…' : 'Deploy'}
          </button>
          {!selection && !busy && <span className="hint" id={nothingId}>Choose a folder or files to deploy first.</span>}
          {selection && !busy && (
            <button
              type="button"
              className="button secondary"
              onClick={() => {
                setSelection(undefined);
                setRefusal(undefined);
              }}
            >
              Clear selection
            </button>
          )}
        </p>
        <ActionError error={refusal} />
      </Form>

      <p className={`status-line deploy-status${busy ? ' busy' : ''}`} role="status" aria-live="polite">
        {busy && <span className="spinner" aria-hidden="true" />}
        {/* The selection, the result and the failure are on screen already: here they are only announced. */}
        {busy ? status : <span className="visually-hidden">{status}</span>}
      </p>

      {deploy.data && <Succeeded {...deploy.data} />}
      {deploy.error && <Notice tone="error" title="The deploy failed">{failure(deploy.error)}</Notice>}
    </div>
  );
}

/** Why the deploy failed; a refusal by the service leaves the live version as it was. */
function failure(error: Error) {
  const message = errorMessage(error);
  return error instanceof ApiError && error.problem?.code !== 'deploy_failed' && !/live version/.test(message)
    ? `${message} The live version is unchanged.`
    : message;
}

function Succeeded({ project: live, deploy, uploaded, skipped }: Readonly<{
  project: Project; deploy: Deploy; uploaded: number; skipped: number;
}>) {
  return (
    <Notice tone="success" title="Deploy succeeded: your site is live">
      <dl className="facts compact deploy-result">
        <div><dt>State</dt><dd><DeployBadge state={live.deployState} /></dd></div>
        <div><dt>Deploy</dt><dd><code><LongValue value={deploy.deployId} /></code></dd></div>
        <div><dt>Finished</dt><dd><Time iso={deploy.finishedAt ?? deploy.startedAt} /></dd></div>
        <div><dt>Files</dt><dd>{plural(deploy.fileCount, 'file')}, {formatBytes(deploy.bytes)}</dd></div>
        <div>
          <dt>Uploaded</dt>
          <dd>
            {plural(uploaded, 'file')} ({formatBytes(deploy.uploadBytes)})
            {skipped > 0 ? `; ${plural(skipped, 'unchanged file')} skipped` : ''}
          </dd>
        </div>
      </dl>
      <p>
        Live at <PlatformUrl url={live.url} label={live.url} />
        {live.domains.primary !== live.defaultDomain && <> and at <PlatformUrl url={`https://${live.domains.primary}/`} /></>}
      </p>
    </Notice>
  );
}

function FilePicker({ id, folder, describedBy, disabled, onChange, children }: {
  readonly id: string;
  /** Set for the folder picker (every file named by webkitRelativePath). */
  readonly folder?: RefObject<HTMLInputElement | null>;
  readonly describedBy: string;
  readonly disabled: boolean;
  readonly onChange: (event: ChangeEvent<HTMLInputElement>) => void;
  readonly children: ReactNode;
}) {
  return (
    <span className="file-picker">
      <input
        ref={folder && ((node) => {
          folder.current = node;
          // Not in React's typings.
          if (node) node.webkitdirectory = true;
        })}
        id={id}
        className="file-input visually-hidden"
        type="file"
        multiple
        onChange={onChange}
        aria-describedby={describedBy}
        disabled={disabled}
      />
      <label htmlFor={id} className="button secondary">{children}</label>
    </span>
  );
}

function SelectionSummary({ selection, problemsId }: { readonly selection: Selection; readonly problemsId: string }) {
  const { files, folder, skipped, totalBytes, problems } = selection;
  const listed = files.slice(0, LISTED);
  const example = files.some((f) => f.path === 'index.html') ? 'index.html' : files[0]?.path;
  return (
    <div className="selection">
      <p className="selection-head">
        <strong>{folder ? <>Folder <code>{folder}</code></> : 'Chosen files'}</strong>
        {': '}
        {plural(files.length, 'file')}, {formatBytes(totalBytes)}
      </p>
      {folder && example && (
        <p className="hint">
          Published from the folder’s contents: <code>{folder}/{example}</code> becomes <code>/{example}</code>.
        </p>
      )}
      {skipped.length > 0 && <p className="hint">Left out (system files): {skipped.join(', ')}</p>}
      {problems.length > 0 && (
        <Notice tone="error" title="This cannot be deployed" id={problemsId}>
          <ul className="problems">{problems.map((p) => <li key={p}>{p}</li>)}</ul>
        </Notice>
      )}
      {files.length > 0 && (
        <details open={files.length <= 12}>
          <summary>Files to publish</summary>
          <ul className="file-list">
            {listed.map((f) => (
              <li key={f.path}>
                <code>{f.path}</code> <span className="muted">{formatBytes(f.file.size)}</span>
              </li>
            ))}
            {files.length > LISTED && <li className="muted">and {plural(files.length - LISTED, 'more file')}</li>}
          </ul>
        </details>
      )}
    </div>
  );
}
