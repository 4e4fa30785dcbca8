import { Card, LongValue, Notice, PageHeading, Time } from '../components/parts';
import { PlatformUrl } from '../components/PlatformUrl';
import { useFlash } from '../flash';
import { formatBytes, formatNumber } from '../format';
import { href } from '../router';
import { useProjectQuery } from '../queries';
import { DeploySection } from './DeploySection';
import { DeployBadge, ProjectLoading, ProjectNav } from './project-parts';
import { DeployHistory } from './projects/DeployHistory';
import { DeleteProject, RenameProject } from './projects/ProjectSettings';

export function ProjectPage({ projectId }: { readonly projectId: string }) {
  const project = useProjectQuery(projectId);
  const flash = useFlash(href.project(projectId));
  if (!project.data) return <ProjectLoading title="Project settings" query={project} />;
  const p = project.data;
  const deploy = p.lastDeploy;
  return (
    <>
      <ProjectNav project={p} current="general" />
      <PageHeading title={`${p.name}: settings`} />
      {flash && !p.liveDeployId && <Notice tone="success" live>{flash}</Notice>}
      <Card title="General">
        <dl className="facts">
          <div><dt>Slug</dt><dd><code>{p.slug}</code></dd></div>
          <div><dt>Project ID</dt><dd><code><LongValue value={p.projectId} /></code></dd></div>
          <div>
            <dt>Default URL</dt>
            <dd>
              {p.liveDeployId
                ? <PlatformUrl url={p.url} label={p.url} />
                : <><a href={p.url} target="_blank" rel="noreferrer"><LongValue value={p.url} /></a><span className="muted"> (not live yet)</span></>}
            </dd>
          </div>
          <div><dt>Primary domain</dt><dd><LongValue value={p.domains.primary} /></dd></div>
          <div><dt>Created</dt><dd><Time iso={p.createdAt} /></dd></div>
        </dl>
      </Card>
      <Card title="Deploys" head={<DeployBadge state={p.deployState} />}>
        {deploy
          ? (
              <dl className="facts">
                <div><dt>Last deploy</dt><dd><code><LongValue value={deploy.deployId} /></code></dd></div>
                <div><dt>Started</dt><dd><Time iso={deploy.startedAt} /></dd></div>
                {deploy.finishedAt && <div><dt>Finished</dt><dd><Time iso={deploy.finishedAt} /></dd></div>}
                <div><dt>Files</dt><dd>{formatNumber(deploy.fileCount)} ({formatBytes(deploy.bytes)})</dd></div>
              </dl>
            )
          : (
              <p>Not deployed yet: the site is published at its default URL after its first successful deploy.</p>
            )}
        {deploy?.error ? <Notice tone="error" title="The last deploy failed">{deploy.error}</Notice> : null}
        {p.deployState === 'failed' && p.liveDeployId && <p className="hint">The previous version is still live.</p>}
        <DeploySection project={p} />
        <DeployHistory project={p} />
      </Card>
      <p><a className="button secondary" href={href.domains(p.projectId)}>Manage domains</a></p>
      <Card title="Name">
        <RenameProject key={p.name} project={p} />
      </Card>
      <Card title="Delete project" className="danger-zone">
        <DeleteProject project={p} />
      </Card>
    </>
  );
}
