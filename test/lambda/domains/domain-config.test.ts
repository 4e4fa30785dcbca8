import { describe, expect, it } from 'vitest';
import {
  type DomainConfig,
  DomainConfigError,
  redirectStatus,
  removalWarning,
  validateDomainConfig,
} from '../../../lambda/domains/domain-config.js';

const project = {
  defaultDomain: 'my-app.platform.example.com',
  domains: [
    { name: 'www.example.com', state: 'active' },
    { name: 'example.com', state: 'active' },
    { name: 'old.example.com', state: 'active' },
    { name: 'shop.example.com', state: 'verifying' },
  ],
};
const problemOf = (config: DomainConfig) => {
  try {
    validateDomainConfig(config, project);
    return 'valid';
  } catch (error) {
    if (error instanceof DomainConfigError) return error.problem;
    throw error;
  }
};

describe('validateDomainConfig', () => {
  it('accepts a primary with redirects into it', () => {
    expect(
      problemOf({
        primary: 'www.example.com',
        redirects: [
          { from: 'example.com', to: 'www.example.com', status: 301 },
          { from: 'old.example.com', to: 'www.example.com', status: 308 },
        ],
      }),
    ).toBe('valid');
    expect(problemOf({ primary: 'my-app.platform.example.com', redirects: [] })).toBe('valid');
  });

  it.each<[string, DomainConfig, string]>([
    ['a primary outside the project', { primary: 'other.com', redirects: [] }, 'unknown_domain'],
    ['a primary not yet active', { primary: 'shop.example.com', redirects: [] }, 'domain_not_active'],
    ['a target outside the project', { primary: 'www.example.com', redirects: [{ from: 'example.com', to: 'evil.com', status: 301 }] }, 'unknown_domain'],
    ['a redirect to itself', { primary: 'www.example.com', redirects: [{ from: 'example.com', to: 'example.com', status: 301 }] }, 'self_redirect'],
    [
      'a chain',
      {
        primary: 'www.example.com',
        redirects: [
          { from: 'old.example.com', to: 'example.com', status: 301 },
          { from: 'example.com', to: 'www.example.com', status: 301 },
        ],
      },
      'redirect_chain',
    ],
    [
      'a loop',
      {
        primary: 'www.example.com',
        redirects: [
          { from: 'old.example.com', to: 'example.com', status: 301 },
          { from: 'example.com', to: 'old.example.com', status: 301 },
        ],
      },
      'redirect_loop',
    ],
    [
      'two redirects from one domain',
      {
        primary: 'www.example.com',
        redirects: [
          { from: 'example.com', to: 'www.example.com', status: 301 },
          { from: 'example.com', to: 'old.example.com', status: 301 },
        ],
      },
      'duplicate_redirect',
    ],
    ['a primary that redirects', { primary: 'example.com', redirects: [{ from: 'example.com', to: 'www.example.com', status: 301 }] }, 'primary_redirects'],
    ['a bad status', { primary: 'www.example.com', redirects: [{ from: 'example.com', to: 'www.example.com', status: 303 as 301 }] }, 'invalid_status'],
  ])('refuses %s', (_name, config, problem) => {
    expect(problemOf(config)).toBe(problem);
  });

  it('explains a chain with the direct target to use', () => {
    expect(() =>
      validateDomainConfig(
        {
          primary: 'www.example.com',
          redirects: [
            { from: 'old.example.com', to: 'example.com', status: 301 },
            { from: 'example.com', to: 'www.example.com', status: 301 },
          ],
        },
        project,
      ),
    ).toThrow(/Point old\.example\.com at www\.example\.com directly/);
  });
});

describe('redirectStatus', () => {
  it('defaults to 301 and accepts 301/302/307/308 only', () => {
    expect(redirectStatus(undefined)).toBe(301);
    expect([301, 302, 307, 308].map((s) => redirectStatus(s))).toEqual([301, 302, 307, 308]);
    expect(() => redirectStatus(303)).toThrow(DomainConfigError);
    expect(() => redirectStatus('301')).toThrow(DomainConfigError);
  });
});

describe('removalWarning', () => {
  const config = { primary: 'www.example.com', redirects: [{ from: 'old.example.com', to: 'www.example.com', status: 301 as const }] };
  it('warns for an active domain without a redirect only', () => {
    expect(removalWarning('example.com', 'active', config)).toMatch(/no redirect/);
    expect(removalWarning('old.example.com', 'active', config)).toBeUndefined();
    expect(removalWarning('shop.example.com', 'verifying', config)).toBeUndefined();
  });
});
