import { Resolver } from 'node:dns/promises';

export interface CaaRecord {
  readonly critical: number;
  readonly tag: string;
  readonly value: string;
}

/** The DNS questions the domain flow asks. Answers of "no such record" are empty lists. */
export interface DnsResolver {
  cname(name: string): Promise<string[]>;
  addresses(name: string): Promise<{ a: string[]; aaaa: string[] }>;
  caa(name: string): Promise<CaaRecord[]>;
  /** TXT records, each with its character strings joined (as RFC 7208 reads a long value). */
  txt(name: string): Promise<string[]>;
}

/** The lookup itself failed (SERVFAIL, timeout, refused): distinct from a wrong or missing record. */
export class DnsLookupError extends Error {
  constructor(readonly queried: string, readonly code: string) {
    super(`DNS lookup of ${queried} failed (${code})`);
    this.name = 'DnsLookupError';
  }
}

const NO_RECORD = new Set(['ENODATA', 'ENOTFOUND', 'NXDOMAIN']);

/** node:dns against the system resolver, or against `servers` such as ['127.0.0.1:5353']. */
export class NodeDnsResolver implements DnsResolver {
  private readonly resolver: Resolver;

  constructor(servers?: readonly string[], options: { timeoutMs?: number; tries?: number } = {}) {
    this.resolver = new Resolver({ timeout: options.timeoutMs ?? 2_000, tries: options.tries ?? 2 });
    if (servers && servers.length > 0) this.resolver.setServers([...servers]);
  }

  cname(name: string): Promise<string[]> {
    return this.ask(name, () => this.resolver.resolveCname(name));
  }

  async addresses(name: string): Promise<{ a: string[]; aaaa: string[] }> {
    const [a, aaaa] = await Promise.all([
      this.ask(name, () => this.resolver.resolve4(name)),
      this.ask(name, () => this.resolver.resolve6(name)),
    ]);
    return { a, aaaa };
  }

  async caa(name: string): Promise<CaaRecord[]> {
    const records = await this.ask(name, () => this.resolver.resolveCaa(name));
    return records.map((r) => {
      const tag = (['issue', 'issuewild', 'iodef'] as const).find((t) => t in r) ?? Object.keys(r).find((k) => k !== 'critical') ?? '';
      return { critical: r.critical, tag, value: String((r as unknown as Record<string, unknown>)[tag] ?? '') };
    });
  }

  async txt(name: string): Promise<string[]> {
    const records = await this.ask(name, () => this.resolver.resolveTxt(name));
    return records.map((chunks) => chunks.join(''));
  }

  private async ask<T>(name: string, query: () => Promise<T[]>): Promise<T[]> {
    try {
      return await query();
    } catch (error) {
      const code = (error as { code?: string }).code ?? 'UNKNOWN';
      if (NO_RECORD.has(code)) return [];
      throw new DnsLookupError(name, code);
    }
  }
}
