import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useRef, useState } from 'react';
import { Badge, Card, Notice, PageHeading, QueryState } from '../components/parts';
import { PlatformUrl } from '../components/PlatformUrl';
import { useNotice } from '../flash';
import { planName, useApp } from '../context';
import { queryKeys, useCurrentPlan, useProjectQuery } from '../queries';
import { href } from '../router';
import type { Domain, DomainConfig, Project } from '../types';
import { AddDomainForm } from './domains/AddDomainForm';
import { DomainCard } from './domains/DomainCard';
import { DomainConfigSection } from './domains/DomainConfigSection';
import { RemoveDialog } from './domains/RemoveDialog';
import { ProjectLoading, ProjectNav } from './project-parts';

export function DomainsPage({ projectId }: { readonly projectId: string }) {
  const { api, accountId, plans } = useApp();
  const queryClient = useQueryClient();
  const project = useProjectQuery(projectId);
  // The gate follows the account query: a plan an operator changes opens (or closes) it at the next refresh.
  const { account, plan } = useCurrentPlan();
  const allowed = plan?.customDomains ?? false;
  const domainsKey = queryKeys.domains(accountId, projectId);
  // Drift checks and the flow change domains while the page is open: read the list again now and then.
  const domains = useQuery({
    queryKey: domainsKey,
    queryFn: () => api.domains(accountId, projectId),
    enabled: allowed,
    refetchInterval: 30_000,
  });
  const [pageNotice, setPageNotice] = useNotice<{ tone: 'success' | 'warning'; text: string }>();
  const [redirectFrom, setRedirectFrom] = useState<string>();
  const [removing, setRemoving] = useState<Domain>();
  const [focusDomain, setFocusDomain] = useState<string>();
  /** What to do once the remove dialog has closed and given focus back (then focus can move on). */
  const afterDialog = useRef<(() => void) | undefined>(undefined);

  const projectKey = queryKeys.project(accountId, projectId);
  const setConfig = (config: DomainConfig) => {
    queryClient.setQueryData<Project>(projectKey, (current) => (current ? { ...current, domains: config } : current));
    void queryClient.invalidateQueries({ queryKey: projectKey });
  };
  // Stable: the polling of every card hands it each new read.
  const replaceDomain = useCallback(
    (updated: Domain) => queryClient.setQueryData<Domain[]>(
      queryKeys.domains(accountId, projectId),
      (current) => current?.map((d) => (d.domain === updated.domain ? updated : d)),
    ),
    [queryClient, accountId, projectId],
  );
  const setDomains = (update: (list: Domain[]) => Domain[]) => {
    queryClient.setQueryData<Domain[]>(domainsKey, (current) => update(current ?? []));
    void queryClient.invalidateQueries({ queryKey: domainsKey });
  };

  if (!project.data) return <ProjectLoading title="Domains" query={project} />;
  const p = project.data;
  const deployed = p.liveDeployId !== undefined;
  const list = domains.data ?? [];

  return (
    <>
      <ProjectNav project={p} current="domains" />
      <PageHeading title={`${p.name}: domains`}>
        <p className="lead">Serve {p.name} at your own domains, with certificates issued and renewed for you.</p>
      </PageHeading>

      <DefaultDomainCard project={p} />

      {!allowed && (
        <Card title="Custom domains need the Pro plan or above" className="upgrade">
          <p>
            Your account is on the {planName(plans, account.plan)} plan, which does not include custom domains.
            {' '}{p.name} stays available at <strong>{p.defaultDomain}</strong>.
          </p>
          <p>
            Plans with custom domains:{' '}
            {plans.filter((x) => x.customDomains).map((x) => x.displayName).join(', ')}.
            {' '}<a href={href.plans}>Compare plans</a>
          </p>
        </Card>
      )}
      {allowed && (
        <>
          {/* A live region that is always there, so its messages are announced. */}
          <div role="status">{pageNotice && <Notice tone={pageNotice.tone}>{pageNotice.text}</Notice>}</div>
          {deployed
            ? (
                <AddDomainForm
                  project={p}
                  addedPending={list.some((d) => d.domain === focusDomain && d.state === 'pending_dns')}
                  onAdded={(domain) => {
                    setDomains((current) => [...current.filter((d) => d.domain !== domain.domain), domain]);
                    setFocusDomain(domain.domain);
                    setPageNotice(undefined);
                  }}
                />
              )
            : (
                <Notice tone="info" title="Deploy the project first">
                  <p>
                    A domain can be added only after a successful deploy of the project. Once it is live at{' '}
                    {p.defaultDomain}, come back to add your domains.
                  </p>
                </Notice>
              )}

          <section aria-labelledby="domains-heading" className="domain-section">
            <div className="section-head">
              <h2 id="domains-heading" tabIndex={-1}>Custom domains</h2>
              <button type="button" className="button small secondary" onClick={() => void domains.refetch()}>Refresh</button>
            </div>
            <QueryState query={domains} loading="Loading domains…" />
            {domains.data && list.length === 0 && <p className="empty card">No custom domains yet.</p>}
            <ul className="domain-list">
              {list.map((domain) => (
                <DomainCard
                  key={domain.domain}
                  project={p}
                  domain={domain}
                  focus={focusDomain === domain.domain}
                  onChange={replaceDomain}
                  onConfig={setConfig}
                  onRemove={() => setRemoving(domain)}
                />
              ))}
            </ul>
          </section>

          <DomainConfigSection
            project={p}
            domains={list}
            presetFrom={redirectFrom}
            onPresetUsed={() => setRedirectFrom(undefined)}
            onConfig={setConfig}
          />

          <RemoveDialog
            project={p}
            domain={removing}
            onClose={() => setRemoving(undefined)}
            onRedirectFirst={(name) => {
              afterDialog.current = () => setRedirectFrom(name);
              setRemoving(undefined);
            }}
            onClosed={() => {
              afterDialog.current?.();
              afterDialog.current = undefined;
            }}
            onRemoved={(name, warning) => {
              setRemoving(undefined);
              setDomains((current) => current.filter((d) => d.domain !== name));
              void queryClient.invalidateQueries({ queryKey: projectKey });
              setPageNotice({
                tone: warning ? 'warning' : 'success',
                text: `${name} was removed and no longer serves traffic.${warning ? ` ${warning}` : ''}`,
              });
            }}
          />
        </>
      )}
    </>
  );
}

function DefaultDomainCard({ project }: { readonly project: Project }) {
  const primary = project.domains.primary === project.defaultDomain;
  return (
    <Card title="Default domain" head={primary && <Badge tone="success">Primary</Badge>}>
      <p>
        {project.liveDeployId
          ? <PlatformUrl url={project.url} label={project.defaultDomain} />
          : <>{project.defaultDomain} <span className="muted">(served after the first successful deploy)</span></>}
      </p>
      <p className="hint">Always available; it cannot be removed.</p>
    </Card>
  );
}
