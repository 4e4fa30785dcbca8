import type { RuntimeConfig } from '../config';
import { authorizeUrl, codeChallenge, exchangeCode, jwtClaims, logoutUrl, randomToken } from './pkce';

/** The signed-in session, kept in sessionStorage (gone when the tab closes). */
export interface Session {
  readonly token: string;
  readonly expiresAt: string;
}

const SESSION_KEY = 'dashboard.session';
const PKCE_KEY = 'dashboard.pkce';

export function loadSession(): Session | undefined {
  try {
    const session = JSON.parse(sessionStorage.getItem(SESSION_KEY) ?? 'null') as Session | null;
    if (typeof session?.token !== 'string' || Date.parse(session.expiresAt) <= Date.now()) {
      sessionStorage.removeItem(SESSION_KEY);
      return undefined;
    }
    return session;
  } catch {
    return undefined;
  }
}

function saveSession(session: Session): Session {
  sessionStorage.setItem(SESSION_KEY, JSON.stringify(session));
  return session;
}

export function clearSession(): void {
  sessionStorage.removeItem(SESSION_KEY);
}

/** The redirect and logout URI registered with the Cognito app client: the dashboard's root. */
const rootUri = () => `${location.origin}/`;

/** Starts Cognito managed login: remembers the verifier and state, then leaves the page. */
export async function beginCognitoSignIn(config: RuntimeConfig): Promise<void> {
  if (config.auth.kind !== 'cognito') throw new Error('Cognito sign-in is not configured');
  const verifier = randomToken(32);
  const state = randomToken(16);
  sessionStorage.setItem(PKCE_KEY, JSON.stringify({ verifier, state, hash: location.hash }));
  const challenge = await codeChallenge(verifier);
  location.assign(authorizeUrl(config.auth, { redirectUri: rootUri(), challenge, state }));
}

/** Completes Cognito sign-in on the redirect back (?code=…&state=…); undefined on any other load. */
export async function completeCognitoSignIn(config: RuntimeConfig): Promise<Session | undefined> {
  if (config.auth.kind !== 'cognito') return undefined;
  const params = new URLSearchParams(location.search);
  const code = params.get('code');
  const error = params.get('error');
  if (!code && !error) return undefined;
  const stored = sessionStorage.getItem(PKCE_KEY);
  sessionStorage.removeItem(PKCE_KEY);
  const pending = stored ? (JSON.parse(stored) as { verifier: string; state: string; hash: string }) : undefined;
  history.replaceState(null, '', `${location.pathname}${pending?.hash ?? ''}`);
  if (error) throw new Error(`Sign-in was not completed: ${params.get('error_description') ?? error}.`);
  if (!pending || pending.state !== params.get('state') || !code) {
    throw new Error('Sign-in could not be completed (the sign-in attempt did not match). Try again.');
  }
  const tokens = await exchangeCode(config.auth, { code, redirectUri: rootUri(), verifier: pending.verifier });
  const claims = jwtClaims(tokens.idToken);
  const exp = typeof claims.exp === 'number' ? claims.exp * 1000 : Date.now() + (tokens.expiresIn ?? 3600) * 1000;
  return saveSession({ token: tokens.idToken, expiresAt: new Date(exp).toISOString() });
}

export function signOut(config: RuntimeConfig): void {
  clearSession();
  if (config.auth.kind === 'cognito') location.assign(logoutUrl(config.auth, rootUri()));
}

export async function devSignIn(config: RuntimeConfig, email: string): Promise<Session> {
  const res = await fetch(`${config.apiBaseUrl}/dev/sign-in`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
    body: JSON.stringify({ email }),
  });
  const record = ((await res.json().catch(() => undefined)) ?? {}) as Record<string, unknown>;
  if (!res.ok || typeof record.token !== 'string') {
    throw new Error(typeof record.detail === 'string' ? record.detail : `Sign-in failed (HTTP ${res.status}).`);
  }
  return saveSession({
    token: record.token,
    expiresAt: typeof record.expiresAt === 'string' ? record.expiresAt : new Date(Date.now() + 3_600_000).toISOString(),
  });
}
