import dns2 from 'dns2';

const { Packet } = dns2;

export interface NameRecords {
  readonly CNAME?: string;
  readonly A?: readonly string[];
  readonly AAAA?: readonly string[];
  readonly CAA?: ReadonlyArray<{ readonly flags: number; readonly tag: string; readonly value: string }>;
  readonly TXT?: readonly string[];
  /** Answer every question about this name with SERVFAIL. */
  readonly SERVFAIL?: boolean;
}

export interface TestDnsServer {
  /** `127.0.0.1:PORT`, for `--dns` or `NodeDnsResolver([...])`. */
  readonly address: string;
  /** Replaces the records of a name (undefined removes it: NXDOMAIN). */
  set(name: string, records: NameRecords | undefined): void;
  /** How many questions about `name` (any type) the server has answered: what a test waits on. */
  asked(name: string): number;
  stop(): Promise<void>;
}

const TYPE_NAMES: Record<number, keyof NameRecords> = {
  [Packet.TYPE.A]: 'A',
  [Packet.TYPE.AAAA]: 'AAAA',
  [Packet.TYPE.CNAME]: 'CNAME',
  [Packet.TYPE.CAA]: 'CAA',
  [Packet.TYPE.TXT]: 'TXT',
};

/**
 * An authoritative DNS server on 127.0.0.1 (UDP) that answers from a zone the test controls,
 * following CNAMEs inside the zone like a recursive resolver would. Names not in the zone are
 * NXDOMAIN; names without the asked type answer NOERROR with no data. A `*.<name>` entry answers
 * for the names below `<name>` that have no entry of their own (as the platform zone's
 * `*.edge.` record does for per-domain targets).
 */
export async function startTestDns(zone: Record<string, NameRecords> = {}): Promise<TestDnsServer> {
  const records = new Map(Object.entries(zone).map(([name, value]) => [name.toLowerCase(), value]));
  const questions = new Map<string, number>();

  const server = dns2.createServer({
    udp: true,
    handle: (request, send) => {
      const response = Packet.createResponseFromRequest(request);
      // dns2's Resource type wants encoder internals; these plain records are what it encodes.
      const answer = (record: object) => response.answers.push(record as (typeof response.answers)[number]);
      const [question] = request.questions;
      if (!question) return void send(response);
      let name = question.name.toLowerCase();
      questions.set(name, (questions.get(name) ?? 0) + 1);
      const wanted = TYPE_NAMES[question.type];
      for (let hops = 0; hops < 8; hops++) {
        const entry = records.get(name) ?? records.get(`*.${name.slice(name.indexOf('.') + 1)}`);
        if (!entry) {
          if (hops === 0) response.header.rcode = 3; // NXDOMAIN
          break;
        }
        if (entry.SERVFAIL) {
          response.header.rcode = 2;
          break;
        }
        if (entry.CNAME) {
          answer({ name, type: Packet.TYPE.CNAME, class: Packet.CLASS.IN, ttl: 60, domain: entry.CNAME });
          if (wanted === 'CNAME') break;
          name = entry.CNAME.toLowerCase();
          continue;
        }
        if (wanted === 'A' || wanted === 'AAAA') {
          for (const address of entry[wanted] ?? []) {
            answer({ name, type: question.type, class: Packet.CLASS.IN, ttl: 60, address });
          }
        } else if (wanted === 'CAA') {
          for (const caa of entry.CAA ?? []) {
            answer({ name, type: Packet.TYPE.CAA, class: Packet.CLASS.IN, ttl: 60, ...caa });
          }
        } else if (wanted === 'TXT') {
          for (const data of entry.TXT ?? []) {
            answer({ name, type: Packet.TYPE.TXT, class: Packet.CLASS.IN, ttl: 60, data });
          }
        }
        break;
      }
      send(response);
    },
  });
  const addresses = await server.listen({ udp: { port: 0, address: '127.0.0.1' } });
  const port = addresses.udp?.port;
  if (!port) throw new Error('test DNS server did not bind');
  return {
    address: `127.0.0.1:${port}`,
    set: (name, value) => {
      if (value === undefined) records.delete(name.toLowerCase());
      else records.set(name.toLowerCase(), value);
    },
    asked: (name) => questions.get(name.toLowerCase()) ?? 0,
    stop: () => server.close(),
  };
}
