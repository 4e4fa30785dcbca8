import { useApp } from '../context';
import { CopyButton, LongValue } from './parts';

/** How a platform host is reached on the local platform (local/edge.ts); undefined on AWS. */
function localWayIn(localEdgeUrl: string | undefined, url: string): { link: string; curl: string } | undefined {
  if (!localEdgeUrl || !URL.canParse(url) || !URL.canParse(localEdgeUrl)) return undefined;
  const target = new URL(url);
  const edge = new URL(localEdgeUrl);
  const path = `${target.pathname}${target.search}`;
  return {
    link: `http://${target.hostname}.localhost:${edge.port}${path}`,
    curl: `curl -H 'Host: ${target.hostname}' ${edge.origin}${path}`,
  };
}

/** A URL the platform serves, as a link unless not `live`, and on the local platform its local ways in. */
export function PlatformUrl({ url, live = true, label }: {
  readonly url: string;
  readonly live?: boolean;
  readonly label?: string;
}) {
  const { config } = useApp();
  const local = localWayIn(config.localEdgeUrl, url);
  const shown = label ?? url.replace(/^https?:\/\//, '').replace(/\/$/, '');
  return (
    <span className="platform-url">
      {live
        ? <a href={url} target="_blank" rel="noreferrer"><LongValue value={shown} /></a>
        : <LongValue value={shown} />}
      {local && live && (
        <span className="local-way block">
          <span className="hint">
            Locally:{' '}
            <a href={local.link} target="_blank" rel="noreferrer">
              <LongValue value={local.link} />
            </a>
          </span>
          <span className="cell-copy">
            <code><LongValue value={local.curl} /></code>
            <CopyButton value={local.curl} label={`Copy the local curl command for ${shown}`} />
          </span>
        </span>
      )}
    </span>
  );
}
