import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Dialog } from '../../components/Dialog';
import { ActionError, Form, Notice } from '../../components/parts';
import { setFlash, useAction } from '../../flash';
import { useApp } from '../../context';
import { queryKeys } from '../../queries';
import { href } from '../../router';
import type { Project } from '../../types';

export function RenameProject({ project }: { readonly project: Project }) {
  const { api, accountId } = useApp();
  const queryClient = useQueryClient();
  const [name, setName] = useState(project.name);
  const [saved, setSaved] = useState(false);
  const { busy, error, run } = useAction();
  const onSubmit = () => run(async () => {
    const renamed = await api.renameProject(accountId, project.projectId, name);
    queryClient.setQueryData(queryKeys.project(accountId, project.projectId), renamed);
    void queryClient.invalidateQueries({ queryKey: queryKeys.projects(accountId) });
    setSaved(true);
  });
  return (
    <Form className="rename-project" onSubmit={onSubmit}>
      <label htmlFor="project-name">Name</label>
      <p className="row">
        <input
          id="project-name"
          value={name}
          maxLength={100}
          onChange={(e) => {
            setName(e.target.value);
            setSaved(false);
          }}
          aria-describedby="project-name-hint"
        />
        <button type="submit" className="button secondary" disabled={busy || name.trim() === '' || name.trim() === project.name}>
          {busy ? 'Renaming…' : 'Rename'}
        </button>
      </p>
      <p className="hint" id="project-name-hint">The slug <code>{project.slug}</code>, and so the project’s address, stay.</p>
      {saved && <p className="status-line" role="status">Renamed.</p>}
      <ActionError error={error} />
    </Form>
  );
}

/** Delete, behind a confirmation that names what goes: the custom domains, the files, and the slug (held 30 days). */
export function DeleteProject({ project }: { readonly project: Project }) {
  const { api, accountId } = useApp();
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const action = useAction();
  const domains = useQuery({
    queryKey: queryKeys.domains(accountId, project.projectId),
    queryFn: () => api.domains(accountId, project.projectId),
    enabled: open,
  });
  const held = (domains.data ?? []).filter((d) => d.state !== 'removed').map((d) => d.domain);
  const remove = async () => {
    const deleted = await api.deleteProject(accountId, project.projectId);
    queryClient.removeQueries({ queryKey: queryKeys.project(accountId, project.projectId) });
    void queryClient.invalidateQueries({ queryKey: queryKeys.projects(accountId) });
    const released = deleted.releasedDomains.length > 0 ? ` ${deleted.releasedDomains.join(', ')} released.` : '';
    setFlash(href.projects, `Project ${project.name} deleted.${released} Its slug ${project.slug} is held until ${deleted.slugHeldUntil.slice(0, 10)}.`);
    location.hash = href.projects;
  };
  return (
    <div className="delete-project">
      <p>
        Deleting the project stops serving it at every address, releases its custom domains and removes its files.
        Its slug cannot be used again for 30 days.
      </p>
      <button type="button" className="button danger-outline" onClick={() => setOpen(true)}>Delete project</button>
      <Dialog
        open={open}
        title={`Delete the project “${project.name}”?`}
        onClose={() => setOpen(false)}
        action={action}
        confirm="Delete project"
        busyLabel="Deleting…"
        onConfirm={remove}
        disabled={domains.isLoading}
      >
        {domains.isLoading
          ? <p>Reading the project’s domains…</p>
          : held.length > 0
            ? (
                <>
                  <p>These custom domains will be released and stop serving from the next request:</p>
                  <ul className="released-domains">{held.map((d) => <li key={d}><code>{d}</code></li>)}</ul>
                </>
              )
            : <p>The project has no custom domains.</p>}
        <p>
          Its files are removed and <code>{project.defaultDomain}</code> stops serving. The slug <code>{project.slug}</code>{' '}
          stays reserved for 30 days, so nobody can take over its address at once. This cannot be undone.
        </p>
        {domains.error && <Notice tone="error">The domains could not be read; try again.</Notice>}
      </Dialog>
    </div>
  );
}
