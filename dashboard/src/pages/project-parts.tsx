import type { UseQueryResult } from '@tanstack/react-query';
import { Badge, type BadgeTone, PageHeading, QueryState } from '../components/parts';
import { href } from '../router';
import type { Project } from '../types';

const DEPLOY: Record<Project['deployState'], { tone: BadgeTone; text: string }> = {
  none: { tone: 'neutral', text: 'Not deployed' },
  in_progress: { tone: 'progress', text: 'Deploying' },
  succeeded: { tone: 'success', text: 'Deployed' },
  failed: { tone: 'error', text: 'Last deploy failed' },
};

export function DeployBadge({ state }: { readonly state: Project['deployState'] }) {
  return <Badge tone={DEPLOY[state].tone}>{DEPLOY[state].text}</Badge>;
}

export function ProjectNav({ project, current }: { readonly project: Project; readonly current: 'general' | 'domains' }) {
  return (
    <>
      <nav aria-label="Breadcrumb" className="breadcrumb">
        <ol>
          <li><a href={href.projects}>Projects</a></li>
          <li><a href={href.project(project.projectId)} aria-current={current === 'general' ? 'page' : undefined}>{project.name}</a></li>
          {current === 'domains' && <li><a href={href.domains(project.projectId)} aria-current="page">Domains</a></li>}
        </ol>
      </nav>
      <nav aria-label="Project settings" className="subnav">
        <a href={href.project(project.projectId)} aria-current={current === 'general' ? 'page' : undefined}>General</a>
        <a href={href.domains(project.projectId)} aria-current={current === 'domains' ? 'page' : undefined}>Domains</a>
      </nav>
    </>
  );
}

export function ProjectLoading({ title, query }: { readonly title: string; readonly query: UseQueryResult }) {
  return (
    <>
      <PageHeading title={title} />
      <QueryState query={query} loading="Loading the project…" />
      <p><a href={href.projects}>Back to projects</a></p>
    </>
  );
}
