import { useId, useState } from 'react';
import { ActionError, Card, Form, LongValue, Notice, PageHeading, QueryState, Time } from '../components/parts';
import { PlatformUrl } from '../components/PlatformUrl';
import { useMutation, useQuery } from '@tanstack/react-query';
import { useApp } from '../context';
import { actionStarted, setFlash, useFlash } from '../flash';
import { queryKeys } from '../queries';
import { checkSlug, SLUG_RULE } from '../../../lambda/projects/slug';
import { href } from '../router';
import { DeployBadge } from './project-parts';

/** A slug suggested by the name: "My Shop!" → "my-shop". */
const slugFrom = (name: string) =>
  name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+/, '')
    .slice(0, 40)
    .replace(/-+$/, '');

export function ProjectsPage() {
  const { api, accountId } = useApp();
  const projects = useQuery({ queryKey: queryKeys.projects(accountId), queryFn: () => api.projects(accountId) });
  const flash = useFlash(href.projects);
  return (
    <>
      <PageHeading title="Projects">
        <p className="lead">Each project is published at its own subdomain of the platform.</p>
      </PageHeading>
      {flash && <Notice tone="success" live>{flash}</Notice>}
      <NewProjectForm />
      <section aria-labelledby="projects-heading">
        <h2 id="projects-heading" className="section-title">Your projects</h2>
        <QueryState query={projects} loading="Loading projects…" />
        {projects.data && projects.data.length === 0 && (
          <div className="card empty">
            <p>No projects yet. Create one above, then deploy its files from its settings.</p>
          </div>
        )}
        <ul className="project-list">
          {projects.data?.map((project) => (
            <li key={project.projectId} className="card project">
              <div className="card-head">
                <h3><a href={href.project(project.projectId)}>{project.name}</a></h3>
                <DeployBadge state={project.deployState} />
              </div>
              <dl className="facts compact">
                <div>
                  <dt>Default URL</dt>
                  <dd>
                    <PlatformUrl
                      url={project.url}
                      label={project.defaultDomain}
                      live={project.liveDeployId !== undefined}
                    />
                    {project.liveDeployId ? null : <span className="muted"> (not live yet)</span>}
                  </dd>
                </div>
                <div>
                  <dt>Primary domain</dt>
                  <dd><LongValue value={project.domains.primary} /></dd>
                </div>
                <div>
                  <dt>Last deploy</dt>
                  <dd>{project.lastDeploy ? <Time iso={project.lastDeploy.finishedAt ?? project.lastDeploy.startedAt} /> : 'Never'}</dd>
                </div>
              </dl>
              <p className="row">
                <a className="button small secondary" href={href.project(project.projectId)} aria-label={`Settings of ${project.name}`}>Settings</a>
                <a className="button small secondary" href={href.domains(project.projectId)} aria-label={`Domains of ${project.name}`}>Domains</a>
              </p>
            </li>
          ))}
        </ul>
      </section>
    </>
  );
}

function NewProjectForm() {
  const { api, accountId, config: { platformDomain: domain } } = useApp();
  const [name, setName] = useState('');
  const [slug, setSlug] = useState('');
  /** Until the owner types a slug, it follows the name. */
  const [slugEdited, setSlugEdited] = useState(false);
  const [error, setError] = useState<string>();
  const rulesId = useId();
  const urlId = useId();
  const errorId = useId();

  /** Checked by the server's own rule (lambda/projects/slug.ts): refused here in its words, before any request. */
  const checked = checkSlug(slug);
  const wanted = checked.slug;
  /** The rule's verdict shows once the owner left the field or submitted, then follows every keystroke. */
  const [judged, setJudged] = useState(false);
  const refusal = judged && wanted && !checked.ok ? checked.message : undefined;
  const create = useMutation({
    mutationFn: (input: { slug: string; name?: string }) => api.createProject(accountId, input),
    onSuccess: (project) => {
      const target = href.project(project.projectId);
      setFlash(target, `Project ${project.name} is created. Deploy its files below to publish it at ${project.defaultDomain}.`);
      location.hash = target;
    },
    onError: () => document.getElementById('project-slug')?.focus(),
  });
  // Still busy once created, until the settings page opens.
  const busy = create.isPending || create.isSuccess;
  const shownError = error ?? create.error ?? refusal;

  const onSubmit = () => {
    if (busy) return;
    actionStarted();
    setJudged(true);
    setError(wanted ? undefined : 'Choose a slug: it names the project’s address, e.g. my-site.');
    if (!wanted || !checked.ok) {
      document.getElementById('project-slug')?.focus();
      return;
    }
    create.mutate({ slug: wanted, ...(name.trim() ? { name: name.trim() } : {}) });
  };

  return (
    <Card title="New project">
      <Form className="new-project" onSubmit={onSubmit}>
        <div className="grid2">
          <div className="field">
            <label htmlFor="project-name">Name <span className="optional">(optional)</span></label>
            <input
              id="project-name"
              value={name}
              maxLength={100}
              autoComplete="off"
              onChange={(e) => {
                setName(e.target.value);
                if (!slugEdited) setSlug(slugFrom(e.target.value));
              }}
            />
            <p className="hint">Shown in the dashboard. Without one, the slug is the name.</p>
          </div>
          <div className="field">
            <label htmlFor="project-slug">Slug</label>
            <input
              id="project-slug"
              value={slug}
              autoComplete="off"
              autoCapitalize="none"
              spellCheck={false}
              required
              aria-describedby={`${rulesId} ${urlId}${shownError ? ` ${errorId}` : ''}`}
              aria-invalid={shownError ? true : undefined}
              onBlur={() => setJudged(slug.trim() !== '')}
              onChange={(e) => {
                setSlug(e.target.value);
                setSlugEdited(e.target.value !== '');
                setError(undefined);
                create.reset();
              }}
            />
            {/* At the field it is about (a taken slug too), not below the button. */}
            <ActionError error={shownError} id={errorId} />
            <p className="hint" id={rulesId}>
              {SLUG_RULE.replace(/^The slug must be /, '').replace(/^./, (c) => c.toUpperCase())} Some names (www,
              api, …) are kept by the platform. It cannot be changed later.
            </p>
          </div>
        </div>
        <p className="url-preview" id={urlId}>
          Default URL:{' '}
          <code>https://{wanted && checked.ok ? wanted : <span className="placeholder">{wanted ? 'a-valid-slug' : 'your-slug'}</span>}.{domain ?? '…'}</code>
          {domain ? null : <span className="hint block">The platform’s domain is shown once the project is created.</span>}
        </p>
        <button type="submit" className="button primary" aria-disabled={busy ? true : undefined}>
          {busy ? 'Creating…' : 'Create project'}
        </button>
      </Form>
    </Card>
  );
}
