import { Notice } from '../../components/parts';
import { Dialog } from '../../components/Dialog';
import { useAction } from '../../flash';
import { useApp } from '../../context';
import type { Domain, Project } from '../../types';
import { isServing } from '../domain-parts';

export function RemoveDialog({ project, domain, onClose, onRedirectFirst, onClosed, onRemoved }: {
  readonly project: Project;
  readonly domain: Domain | undefined;
  readonly onClose: () => void;
  readonly onRedirectFirst: (domain: string) => void;
  readonly onClosed: () => void;
  readonly onRemoved: (domain: string, warning: string | undefined) => void;
}) {
  const { api, accountId } = useApp();
  const action = useAction();
  const name = domain?.domain ?? '';
  const redirect = project.domains.redirects.find((r) => r.from === name);
  const pointing = project.domains.redirects.filter((r) => r.to === name);
  const live = isServing(domain);
  // The dialog shows its body and buttons only while open, that is with a domain.
  const remove = async () => {
    const result = await api.removeDomain(accountId, project.projectId, name);
    onRemoved(result.domain, result.warning);
  };
  return (
    <Dialog
      open={domain !== undefined}
      title={`Remove ${name}?`}
      onClose={onClose}
      onClosed={onClosed}
      fallbackFocus="domains-heading"
      action={action}
      confirm="Remove domain"
      busyLabel="Removing…"
      onConfirm={remove}
      disabled={pointing.length > 0}
      extra={live && !redirect && pointing.length === 0 && project.domains.primary !== name && (
        <button type="button" className="button secondary" onClick={() => onRedirectFirst(name)}>Set up a redirect first</button>
      )}
    >
      <p>
        <strong>{name} stops serving traffic immediately.</strong> Requests to it are refused from the next one
        on, and its certificate is released.
      </p>
      {pointing.length > 0 && (
        <Notice tone="error" title="Other domains redirect here">
          <p>
            {pointing.map((r) => r.from).join(', ')} redirect{pointing.length === 1 ? 's' : ''} to {name}.
            Change or remove {pointing.length === 1 ? 'that redirect' : 'those redirects'} first.
          </p>
        </Notice>
      )}
      {live && !redirect && (
        <Notice tone="warning" title="No redirect is set up">
          <p>
            Links to {name} will stop working. If its URL was shared, set up a redirect from {name} to
            another domain first.
          </p>
        </Notice>
      )}
      {redirect && <p>Its redirect to {redirect.to} is removed too.</p>}
      {project.domains.primary === name && (
        <p>It is the primary domain: {project.defaultDomain} becomes primary.</p>
      )}
      <p className="hint">You can add the domain again later.</p>
    </Dialog>
  );
}
