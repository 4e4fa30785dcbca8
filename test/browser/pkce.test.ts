import { describe, expect, it } from 'vitest';
import {
  authorizeUrl, base64Url, codeChallenge, jwtClaims, logoutUrl, randomToken, tokenRequestBody,
} from '../../dashboard/src/auth/pkce.js';

// The dashboard's OAuth 2.0 PKCE helper (Cognito managed login), outside the browser: the same
// module runs on Web Crypto in both.
const client = { domain: 'https://demo.auth.eu-west-1.amazoncognito.com', clientId: 'abc123', scopes: ['openid', 'email', 'profile'] };

describe('PKCE helper', () => {
  it('derives the S256 challenge of RFC 7636 appendix B', async () => {
    expect(await codeChallenge('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk')).toBe('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
  });

  it('makes 43-character unreserved verifiers that differ every time, and refuses short ones', async () => {
    const a = randomToken();
    const b = randomToken();
    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(a).not.toBe(b);
    await expect(codeChallenge('too-short')).rejects.toThrow(/43 to 128/);
    expect(base64Url(new Uint8Array([251, 255, 191]))).toBe('-_-_');
  });

  it('builds the authorize, token and logout requests of the managed login', () => {
    const url = new URL(authorizeUrl(client, { redirectUri: 'https://d111.cloudfront.net/', challenge: 'CH', state: 'ST' }));
    expect(url.origin + url.pathname).toBe('https://demo.auth.eu-west-1.amazoncognito.com/oauth2/authorize');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      response_type: 'code',
      client_id: 'abc123',
      redirect_uri: 'https://d111.cloudfront.net/',
      scope: 'openid email profile',
      code_challenge: 'CH',
      code_challenge_method: 'S256',
      state: 'ST',
    });
    const body = tokenRequestBody(client, { code: 'C0DE', redirectUri: 'https://d111.cloudfront.net/', verifier: 'V' });
    expect(Object.fromEntries(body)).toEqual({
      grant_type: 'authorization_code',
      client_id: 'abc123',
      code: 'C0DE',
      redirect_uri: 'https://d111.cloudfront.net/',
      code_verifier: 'V',
    });
    expect(logoutUrl(client, 'https://d111.cloudfront.net/'))
      .toBe('https://demo.auth.eu-west-1.amazoncognito.com/logout?client_id=abc123&logout_uri=https%3A%2F%2Fd111.cloudfront.net%2F');
  });

  it('reads the claims of an ID token (base64url, UTF-8)', () => {
    const payload = Buffer.from(JSON.stringify({ email: 'zoë@example.org', exp: 1_800_000_000 })).toString('base64url');
    expect(jwtClaims(`eyJhbGciOiJSUzI1NiJ9.${payload}.sig`)).toEqual({ email: 'zoë@example.org', exp: 1_800_000_000 });
    expect(() => jwtClaims('not-a-jwt')).toThrow();
  });
});
