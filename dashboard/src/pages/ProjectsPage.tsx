import { Loading, Notice } from '../components/Notice';
import { PageHeading } from '../components/PageHeading';
import { Time } from '../components/Time';
import { useAsync } from '../components/useAsync';
import { useApp } from '../context';
import { href } from '../router';
import { DeployBadge } from './project-parts';

export function ProjectsPage() {
  const { api, config, me } = useApp();
  const projects = useAsync(() => api.projects(me.account.accountId), [api, me.account.accountId]);
  return (
    <>
      <PageHeading title="Projects">
        <p className="lead">Each project is published at its own subdomain of the platform.</p>
      </PageHeading>
      {projects.error ? <Notice tone="error">{projects.error}</Notice> : null}
      {!projects.data && projects.loading ? <Loading label="Loading projects…" /> : null}
      {projects.data && projects.data.length === 0
        ? (
            <div className="card empty">
              <p>No projects yet.</p>
              {config.auth.kind === 'dev'
                ? (
                    <p className="hint">
                      Create and deploy one with the platform CLI:{' '}
                      <code>npm run platform -- projects create --account {me.account.accountId} --slug my-site</code>.
                    </p>
                  )
                : null}
            </div>
          )
        : null}
      <ul className="project-list">
        {projects.data?.map((project) => (
          <li key={project.projectId} className="card project">
            <div className="card-head">
              <h2><a href={href.project(project.projectId)}>{project.name}</a></h2>
              <DeployBadge state={project.deployState} />
            </div>
            <dl className="facts compact">
              <div>
                <dt>Default URL</dt>
                <dd>
                  {project.liveDeployId
                    ? <a href={project.url} target="_blank" rel="noreferrer">{project.defaultDomain}</a>
                    : <span>{project.defaultDomain} <span className="muted">(not live yet)</span></span>}
                </dd>
              </div>
              <div>
                <dt>Primary domain</dt>
                <dd>{project.domains.primary}</dd>
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
    </>
  );
}
