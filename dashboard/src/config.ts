import type { PlanId } from './types';

export interface DemoOwner {
  readonly email: string;
  readonly plan: PlanId;
}

export type AuthConfig =
  | { readonly kind: 'dev'; readonly demoOwners: readonly DemoOwner[] } |
  { readonly kind: 'cognito'; readonly domain: string; readonly clientId: string; readonly scopes: readonly string[] };

/** /config.json, served next to the app (locally by the platform, on AWS from the bucket). */
export interface RuntimeConfig {
  readonly apiBaseUrl: string;
  readonly messagesApiUrl: string;
  /** Projects are served at `<slug>.<platformDomain>`. */
  readonly platformDomain?: string;
  /**
   * Only on the local platform: its edge (`http://127.0.0.1:<port>`), which serves every platform
   * host by its Host header and as `<host>.localhost`. Platform URLs are then shown with their local way in.
   */
  readonly localEdgeUrl?: string;
  readonly auth: AuthConfig;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

function parseAuth(value: unknown): AuthConfig {
  if (!isRecord(value)) throw new Error('config.json: "auth" is missing');
  if (value.kind === 'dev') {
    const owners = Array.isArray(value.demoOwners) ? value.demoOwners : [];
    return {
      kind: 'dev',
      demoOwners: owners.filter(
        (o): o is DemoOwner => isRecord(o) && typeof o.email === 'string' && typeof o.plan === 'string',
      ),
    };
  }
  if (value.kind === 'cognito' && typeof value.domain === 'string' && typeof value.clientId === 'string') {
    const scopes = Array.isArray(value.scopes) ? value.scopes.filter((s): s is string => typeof s === 'string') : [];
    return {
      kind: 'cognito',
      domain: value.domain.replace(/\/+$/, ''),
      clientId: value.clientId,
      scopes: scopes.length > 0 ? scopes : ['openid', 'email', 'profile'],
    };
  }
  throw new Error('config.json: "auth.kind" must be "dev" or "cognito"');
}

export function parseConfig(value: unknown): RuntimeConfig {
  if (!isRecord(value) || typeof value.apiBaseUrl !== 'string') {
    throw new Error('config.json: "apiBaseUrl" is missing');
  }
  return {
    apiBaseUrl: value.apiBaseUrl.replace(/\/+$/, ''),
    messagesApiUrl: typeof value.messagesApiUrl === 'string' ? value.messagesApiUrl.replace(/\/+$/, '') : '',
    ...(typeof value.platformDomain === 'string' && value.platformDomain ? { platformDomain: value.platformDomain } : {}),
    ...(typeof value.localEdgeUrl === 'string' && value.localEdgeUrl ? { localEdgeUrl: value.localEdgeUrl.replace(/\/+$/, '') } : {}),
    auth: parseAuth(value.auth),
  };
}

export async function loadConfig(): Promise<RuntimeConfig> {
  const res = await fetch(new URL('config.json', document.baseURI), { cache: 'no-store' });
  if (!res.ok) throw new Error(`config.json could not be loaded (HTTP ${res.status})`);
  return parseConfig(await res.json());
}
