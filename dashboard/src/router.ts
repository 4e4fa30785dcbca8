import { useEffect, useState } from 'react';

/** The routes without a parameter, by their one path segment. */
const PAGES = ['keys', 'usage', 'plans', 'projects', 'messages', 'webhooks'] as const;

/** Hash routes (work on S3/CloudFront without rewrites): #/ (the overview), #/keys, #/projects/<id>/domains, … */
export type Route =
  | { readonly name: 'overview' | (typeof PAGES)[number] } |
  { readonly name: 'project' | 'domains'; readonly projectId: string } |
  { readonly name: 'message'; readonly messageId: string } |
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
  const page = PAGES.find((name) => name === first);
  if (page && parts.length === 1) return { name: page };
  if (first === 'messages' && id && parts.length === 2) return { name: 'message', messageId: id };
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
