import { useEffect, useState } from 'react';

/** Hash routes (work on S3/CloudFront without rewrites): #/ (the overview), #/keys, #/usage, #/plans, #/projects, #/projects/<id>/domains. */
export type Route =
  | { readonly name: 'overview' } |
  { readonly name: 'keys' } |
  { readonly name: 'usage' } |
  { readonly name: 'plans' } |
  { readonly name: 'projects' } |
  { readonly name: 'project'; readonly projectId: string } |
  { readonly name: 'domains'; readonly projectId: string } |
  { readonly name: 'messages' } |
  { readonly name: 'message'; readonly messageId: string } |
  { readonly name: 'webhooks' } |
  { readonly name: 'not-found'; readonly path: string };

export function parseRoute(hash: string): Route {
  const path = hash.replace(/^#/, '') || '/';
  const parts = path.split('/').filter(Boolean).map((p) => {
    try {
      return decodeURIComponent(p);
    } catch {
      return p;
    }
  });
  const [first, id, sub] = parts;
  if (parts.length === 0) return { name: 'overview' };
  if (parts.length === 1 && first === 'keys') return { name: 'keys' };
  if (parts.length === 1 && first === 'usage') return { name: 'usage' };
  if (parts.length === 1 && first === 'plans') return { name: 'plans' };
  if (parts.length === 1 && first === 'projects') return { name: 'projects' };
  if (parts.length === 1 && first === 'messages') return { name: 'messages' };
  if (first === 'messages' && id && parts.length === 2) return { name: 'message', messageId: id };
  if (parts.length === 1 && first === 'webhooks') return { name: 'webhooks' };
  if (first === 'projects' && id && parts.length === 2) return { name: 'project', projectId: id };
  if (first === 'projects' && id && sub === 'domains' && parts.length === 3) return { name: 'domains', projectId: id };
  return { name: 'not-found', path };
}

export const href = {
  overview: '#/',
  keys: '#/keys',
  usage: '#/usage',
  plans: '#/plans',
  projects: '#/projects',
  project: (projectId: string) => `#/projects/${encodeURIComponent(projectId)}`,
  domains: (projectId: string) => `#/projects/${encodeURIComponent(projectId)}/domains`,
  messages: '#/messages',
  message: (messageId: string) => `#/messages/${encodeURIComponent(messageId)}`,
  webhooks: '#/webhooks',
};

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const update = () => setRoute(parseRoute(location.hash));
    window.addEventListener('hashchange', update);
    return () => window.removeEventListener('hashchange', update);
  }, []);
  return route;
}
