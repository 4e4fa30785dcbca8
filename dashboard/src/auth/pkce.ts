// OAuth 2.0 code flow with PKCE (RFC 7636) for Cognito's managed login; storage and redirects: session.ts.

export interface CognitoClient {
  /** e.g. https://<prefix>.auth.<region>.amazoncognito.com (no trailing slash). */
  readonly domain: string;
  readonly clientId: string;
  readonly scopes: readonly string[];
}

/** base64url without padding (RFC 4648 §5). */
export function base64Url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** A random string of `bytes` random bytes in base64url: 32 bytes give a 43-character verifier. */
export function randomToken(bytes = 32): string {
  return base64Url(crypto.getRandomValues(new Uint8Array(bytes)));
}

/** The S256 code challenge of a verifier: base64url(SHA-256(ASCII(verifier))). */
export async function codeChallenge(verifier: string): Promise<string> {
  if (!/^[A-Za-z0-9\-._~]{43,128}$/.test(verifier)) throw new Error('A PKCE verifier is 43 to 128 unreserved characters');
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier));
  return base64Url(new Uint8Array(digest));
}

export function authorizeUrl(
  client: CognitoClient,
  params: { readonly redirectUri: string; readonly challenge: string; readonly state: string },
): string {
  const url = new URL(`${client.domain}/oauth2/authorize`);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: client.clientId,
    redirect_uri: params.redirectUri,
    scope: client.scopes.join(' '),
    code_challenge: params.challenge,
    code_challenge_method: 'S256',
    state: params.state,
  }).toString();
  return url.toString();
}

/** The form body of the token request that exchanges the code. */
export function tokenRequestBody(
  client: CognitoClient,
  params: { readonly code: string; readonly redirectUri: string; readonly verifier: string },
): URLSearchParams {
  return new URLSearchParams({
    grant_type: 'authorization_code',
    client_id: client.clientId,
    code: params.code,
    redirect_uri: params.redirectUri,
    code_verifier: params.verifier,
  });
}

export function logoutUrl(client: CognitoClient, logoutUri: string): string {
  const url = new URL(`${client.domain}/logout`);
  url.search = new URLSearchParams({ client_id: client.clientId, logout_uri: logoutUri }).toString();
  return url.toString();
}

/** The claims of a JWT, unverified: for display and expiry only (the API verifies the token). */
export function jwtClaims(token: string): Record<string, unknown> {
  const payload = token.split('.')[1];
  if (!payload) throw new Error('Not a JWT');
  const base64 = payload.replace(/-/g, '+').replace(/_/g, '/').padEnd(Math.ceil(payload.length / 4) * 4, '=');
  const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
  const claims: unknown = JSON.parse(new TextDecoder().decode(bytes));
  if (typeof claims !== 'object' || claims === null) throw new Error('Not a JWT');
  return claims as Record<string, unknown>;
}

/** Exchanges the authorization code at the token endpoint; answers the ID token and its lifetime in seconds. */
export async function exchangeCode(
  client: CognitoClient,
  params: { readonly code: string; readonly redirectUri: string; readonly verifier: string },
): Promise<{ idToken: string; expiresIn: number | undefined }> {
  const res = await fetch(`${client.domain}/oauth2/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: tokenRequestBody(client, params).toString(),
  });
  const body = ((await res.json().catch(() => undefined)) ?? {}) as Record<string, unknown>;
  if (!res.ok || typeof body.id_token !== 'string') {
    const reason = typeof body.error === 'string' ? body.error : `HTTP ${res.status}`;
    throw new Error(`Sign-in could not be completed (${reason}). Try again.`);
  }
  return { idToken: body.id_token, expiresIn: typeof body.expires_in === 'number' ? body.expires_in : undefined };
}
