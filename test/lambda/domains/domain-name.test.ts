import { describe, expect, it } from 'vitest';
import { requiredRecords } from '../../../lambda/domains/dns-records.js';
import { InvalidDomainError, normaliseDomain } from '../../../lambda/domains/domain-name.js';

const PLATFORM = 'platform.example.com';
const problemOf = (input: string) => {
  try {
    normaliseDomain(input, PLATFORM);
  } catch (error) {
    if (error instanceof InvalidDomainError) return error.problem;
    throw error;
  }
  return 'accepted';
};

describe('normaliseDomain', () => {
  it.each([
    ['  WWW.Example.COM.  ', 'www.example.com', false, 'www', 'example.com'],
    ['example.com', 'example.com', true, '', 'example.com'],
    ['shop.example.co.uk', 'shop.example.co.uk', false, 'shop', 'example.co.uk'],
    ['example.co.uk', 'example.co.uk', true, '', 'example.co.uk'],
    ['a.b.example.org', 'a.b.example.org', false, 'a.b', 'example.org'],
    ['Shop.Bücher.de', 'shop.xn--bcher-kva.de', false, 'shop', 'xn--bcher-kva.de'],
    ['münchen.de', 'xn--mnchen-3ya.de', true, '', 'xn--mnchen-3ya.de'],
  ])('%s → %s', (input, name, apex, subdomain, registrable) => {
    const parsed = normaliseDomain(input, PLATFORM);
    expect(parsed).toMatchObject({ name, apex, subdomain, registrable, display: input.trim() });
  });

  it.each([
    ['', 'empty'],
    ['   ', 'empty'],
    ['192.0.2.1', 'ip_literal'],
    ['[2001:db8::1]', 'ip_literal'],
    ['*.example.com', 'wildcard'],
    ['https://example.com', 'invalid_characters'],
    ['example.com/path', 'invalid_characters'],
    ['exa mple.com', 'invalid_characters'],
    ['-bad.example.com', 'invalid_label'],
    ['bad-.example.com', 'invalid_label'],
    ['a..example.com', 'invalid_label'],
    [`${'a'.repeat(64)}.example.com`, 'invalid_label'],
    [`${'abcdefghij.'.repeat(24)}example.com`, 'too_long'],
    ['localhost', 'not_registrable'],
    ['co.uk', 'not_registrable'],
    ['platform.example.com', 'platform_domain'],
    ['my-app.platform.example.com', 'platform_domain'],
    ['PLATFORM.example.com.', 'platform_domain'],
  ])('refuses %j (%s)', (input, problem) => {
    expect(problemOf(input)).toBe(problem);
  });
});

describe('requiredRecords', () => {
  const TARGET = 'k7q2mzxw4c3vd5n6h8j9ab2cde.edge.platform.example.com';

  it('a subdomain gets one CNAME to its target with TTL 3600', () => {
    expect(requiredRecords(normaliseDomain('www.example.com', PLATFORM), { target: TARGET })).toEqual([
      { type: 'CNAME', purpose: 'routing', host: 'www', fqdn: 'www.example.com', value: TARGET, ttl: 3600 },
    ]);
  });

  it('an apex gets ALIAS/ANAME at @ with the provider caveat', () => {
    const [record, ...rest] = requiredRecords(normaliseDomain('example.com', PLATFORM), { target: TARGET });
    expect(record).toMatchObject({ type: 'ALIAS', purpose: 'routing', host: '@', fqdn: 'example.com', value: TARGET, ttl: 3600 });
    expect(record?.note).toMatch(/not every provider/i);
    expect(rest).toEqual([]);
  });

  it('puts the ownership TXT record beside the routing record when one is required, named relative to the registrable domain', () => {
    const ownership = { fqdn: '_platform-verify.shop.eu.example.co.uk', host: '_platform-verify.shop.eu', value: 'platform-verify=abc', note: 'why' };
    expect(requiredRecords(normaliseDomain('shop.eu.example.co.uk', PLATFORM), { target: TARGET, ownership })).toEqual([
      { type: 'CNAME', purpose: 'routing', host: 'shop.eu', fqdn: 'shop.eu.example.co.uk', value: TARGET, ttl: 3600 },
      { type: 'TXT', purpose: 'ownership', host: '_platform-verify.shop.eu', fqdn: '_platform-verify.shop.eu.example.co.uk', value: 'platform-verify=abc', ttl: 3600, note: 'why' },
    ]);
  });
});
