import type { LocalPlatform } from '../../../../local/platform.js';
import type { CloudAssembly, SynthesizedFunction } from '../cdk-out.js';
import { LOCAL_ACCOUNT, localResolver } from '../local-resources.js';
import { recogniseCall, type WireRequest } from './aws-call.js';
import { authorize, type PolicyStatement } from './iam-policy.js';
import { startRecordingProxy, type RecordingProxy } from './recording-proxy.js';
import { arnResolver, resourcePoliciesOf, rolePoliciesOf, type RolePolicies } from './role-policies.js';

/** A call a function's synthesized role does not allow, or one the check could not read. */
export interface PermissionViolation {
  readonly label: string;
  readonly call: string;
  readonly why: string;
}

/** Raised at the end of a bundle stage: every call a bundle made that its role does not allow. */
export class PermissionError extends Error {
  override name = 'PermissionError';
}

interface FunctionRecord {
  readonly policies: RolePolicies;
  /** `dynamodb:GetItem arn:…` → count, for the summary. */
  readonly allowed: Map<string, number>;
}

/**
 * Every permission proven by a call: each function process of the stage reaches AWS through its
 * own recording proxy, and each call it makes (service, action, resource ARN) is checked against
 * the policies synth wrote for its role and for the resource. `violations()` lists what was not
 * allowed; the stage fails with them when it stops.
 */
export class PermissionCheck {
  private readonly functions = new Map<string, FunctionRecord>();
  private readonly proxies: RecordingProxy[] = [];
  private readonly found: PermissionViolation[] = [];
  private readonly resourcePolicies: readonly PolicyStatement[];
  private readonly resolve;

  constructor(private readonly assembly: CloudAssembly, platform: LocalPlatform) {
    const regions = new Set([...assembly.stacks.values()].map((s) => s.region));
    const byRegion = new Map([...regions].map((r) => [r, arnResolver(assembly, localResolver(platform, r))]));
    // The resolver's region only matters to the state machine's ARN: each reference is resolved in its producer's region.
    this.resolve = (ref: Parameters<ReturnType<typeof arnResolver>>[0]) => {
      const region = assembly.stacks.get(ref.stack)?.region ?? '';
      const resolver = byRegion.get(region);
      if (!resolver) throw new Error(`no stack region for ${ref.stack}`);
      return resolver(ref);
    };
    this.resourcePolicies = resourcePoliciesOf(assembly, this.resolve);
  }

  /**
   * A function process's environment with its way to AWS through its own recording proxy: every
   * AWS_ENDPOINT_URL_* and every value naming the SQS peer (a queue URL: the SQS client sends to
   * the QueueUrl's host, not to its configured endpoint). Called once per function process.
   */
  async route(label: string, fn: SynthesizedFunction, env: Record<string, string>): Promise<Record<string, string>> {
    const upstreams = { dynamodb: env.AWS_ENDPOINT_URL_DYNAMODB ?? '', sqs: env.AWS_ENDPOINT_URL_SQS ?? '', stub: env.AWS_ENDPOINT_URL_CLOUDFRONT ?? '' };
    if (!upstreams.dynamodb || !upstreams.sqs || !upstreams.stub) throw new Error(`${label}: the stage gave no DynamoDB, SQS or stub endpoint to route`);
    // Queue URLs name the SQS peer by its port, under any loopback host (fauxqs: sqs.<region>.localhost).
    const sqsPort = new URL(upstreams.sqs).port;
    const queueOrigin = new RegExp(`https?://[^/\\s"]+:${sqsPort}(?=/)`, 'g');
    const queueOrigins = new Set(Object.values(env).flatMap((v) => v.match(queueOrigin) ?? []));
    if (queueOrigins.size > 1) throw new Error(`${label}: queue URLs under several origins (${[...queueOrigins].join(', ')})`);
    const [originalQueueOrigin] = queueOrigins;
    const record: FunctionRecord = { policies: rolePoliciesOf(this.assembly, fn, this.resolve), allowed: new Map() };
    this.functions.set(label, record);
    const check = (request: WireRequest) => this.check(label, record, request);
    const proxy = await startRecordingProxy({ ...upstreams, queueOrigin: originalQueueOrigin }, check);
    this.proxies.push(proxy);
    const routed: Record<string, string> = {};
    for (const [name, value] of Object.entries(env)) {
      if (name === 'AWS_ENDPOINT_URL_CLOUDFRONT_KEYVALUESTORE') routed[name] = proxy.hostUrl;
      else if (name.startsWith('AWS_ENDPOINT_URL_')) routed[name] = proxy.url;
      else routed[name] = value.replace(queueOrigin, proxy.url);
    }
    return routed;
  }

  violations(): readonly PermissionViolation[] {
    return this.found;
  }

  /** Per function: the distinct calls that were checked and allowed (for a reader of the stage's output). */
  summary(): string {
    return [...this.functions]
      .map(([label, r]) => `${label}: ${[...r.allowed].map(([call, n]) => `${call} ×${n}`).join(', ') || 'no AWS call'}`)
      .join('\n');
  }

  async stop(): Promise<void> {
    await Promise.all(this.proxies.map((p) => p.stop()));
    if (process.env.BUNDLE_PERMISSIONS_SUMMARY) console.info(`AWS calls checked against the synthesized roles:\n${this.summary()}`);
  }

  /** Throws a PermissionError naming each call its role did not allow. */
  assertAllowed(): void {
    if (this.found.length === 0) return;
    const lines = this.found.map((v) => `${v.label} bundle: ${v.call}: ${v.why}`);
    throw new PermissionError(`calls the synthesized roles do not allow (${this.found.length}):\n${[...new Set(lines)].join('\n')}`);
  }

  private check(label: string, record: FunctionRecord, request: WireRequest): void {
    const call = recogniseCall(request);
    if (typeof call === 'string') {
      this.found.push({ label, call: `${request.service} ${request.method} ${request.path}`, why: `not recognised: ${call}` });
      return;
    }
    const context = {
      principalArn: record.policies.roleArn,
      principalAccount: LOCAL_ACCOUNT,
      secureTransport: true,
      ...(request.service === 's3' ? { s3Prefix: request.query.get('prefix') ?? '' } : {}),
    };
    const denied = authorize(call, record.policies.identity, this.resourcePolicies, context);
    for (const d of denied) {
      const managed = record.policies.managedPolicyArns.length ? ` (managed policies not evaluated: ${record.policies.managedPolicyArns.join(', ')})` : '';
      const operation = call.action.endsWith(`:${call.operation}`) ? '' : ` (${call.operation})`;
      this.found.push({ label, call: `${call.action}${operation} on ${d.resource}`, why: d.why + managed });
    }
    if (denied.length === 0) {
      for (const resource of call.resources) {
        const key = `${call.action} ${resource}`;
        record.allowed.set(key, (record.allowed.get(key) ?? 0) + 1);
      }
    }
  }
}
