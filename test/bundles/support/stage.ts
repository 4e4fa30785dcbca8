import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient } from '../../../lambda/shared/dynamodb.js';
import { LOCAL_AWS } from '../../../local/emulators.js';
import { type LocalPlatform, startLocalPlatform } from '../../../local/platform.js';
import { startTestDns, type TestDnsServer } from '../../support/dns-server.js';
import { AwsWireStub } from './aws-stub.js';
import { CloudAssembly, type SynthesizedFunction } from './cdk-out.js';
import { BundleError, LambdaProcess } from './lambda-process.js';
import { PermissionCheck } from './permissions/permission-check.js';
import {
  lambdaArnOf,
  lambdaRuntimeEnv,
  localNetworkEnv,
  localResolver,
  pseudoParameters,
} from './local-resources.js';

/**
 * Every function of the app, by the construct path below its stack. The inventory test checks
 * this against the templates in both directions: a function added to a stack fails the stage until
 * it has an entry here (and a test that invokes it).
 */
export const FUNCTIONS = {
  authorizer: 'Messages/Authorizer/Function',
  sendMessage: 'Messages/SendMessage/Function',
  getMessage: 'Messages/GetMessage/Function',
  fallback: 'Messages/Fallback/Function',
  worker: 'Messages/Worker/Function',
  control: 'Dashboard/ControlFunction/Function',
  verifyDns: 'Flow/VerifyDns/Function',
  requestCertificate: 'Flow/RequestCertificate/Function',
  checkCertificate: 'Flow/CheckCertificate/Function',
  activate: 'Flow/Activate/Function',
  diagnose: 'Flow/Diagnose/Function',
  releaseTenant: 'Flow/ReleaseTenant/Function',
  checkDrift: 'Flow/CheckDrift/Function',
  delivery: 'Webhooks/Delivery/Function',
} as const;

export type FunctionKey = keyof typeof FUNCTIONS;

/**
 * Functions in the templates that this project does not bundle: CDK's own handlers, shipped
 * prebuilt inside aws-cdk-lib. Each entry says why it is not invoked here.
 */
export const NOT_OUR_BUNDLES: ReadonlyArray<{
  readonly match: (fn: SynthesizedFunction) => boolean;
  readonly reason: string;
}> = [
  {
    match: (fn) => fn.path.startsWith('Custom::CDKBucketDeployment') && fn.runtime.startsWith('python'),
    reason: 'BucketDeployment\'s Python handler from aws-cdk-lib (it uploads the dashboard\'s files at deploy time); not built by PlatformFunction',
  },
];

export interface BundleStageOptions {
  /** Records the dns2 server starts with (the flow tasks resolve through it). */
  readonly dns?: Parameters<typeof startTestDns>[0];
  /** A deployed `demo` project on the Pro demo account (the domain flow needs a live deploy). */
  readonly demoProject?: boolean;
}

/**
 * The emulators and stubs the bundles run against, and the bundles themselves: the local platform
 * (dynalite, fauxqs, tables, queues and demo data; its queue worker off so messages stay on the
 * queue for the worker bundle, its drift timer off so only the CheckDrift bundle checks live
 * domains), a dns2 server, the wire-format stub, and one process per function started on first
 * use, with its code copied out of the repository.
 */
export class BundleStage {
  private readonly processes = new Map<FunctionKey, Promise<LambdaProcess>>();
  private readonly copies = new Map<string, string>();
  private readonly functions: ReadonlyMap<string, SynthesizedFunction>;
  /** For the tests' own reads of what the bundles wrote (dynalite, fauxqs). */
  readonly documents: DynamoDBDocumentClient;
  readonly sqs: SQSClient;
  /** Every AWS call of every bundle, checked against its synthesized role (test/bundles/support/permissions/). */
  readonly permissions: PermissionCheck;

  private constructor(
    readonly assembly: CloudAssembly,
    readonly platform: LocalPlatform,
    readonly dns: TestDnsServer,
    readonly stub: AwsWireStub,
    private readonly workDir: string,
  ) {
    this.functions = new Map(assembly.functions().map((fn) => [fn.path, fn]));
    this.documents = createDocumentClient({ ...LOCAL_AWS, endpoint: platform.endpoints.dynamodb });
    this.sqs = new SQSClient({ ...LOCAL_AWS, endpoint: platform.endpoints.sqs });
    this.permissions = new PermissionCheck(assembly, platform);
  }

  static async start(options: BundleStageOptions = {}): Promise<BundleStage> {
    const assembly = new CloudAssembly();
    const dns = await startTestDns(options.dns ?? {});
    const stub = await AwsWireStub.start();
    const platform = await startLocalPlatform({
      port: 0,
      controlPort: 0,
      edgePort: 0,
      worker: false,
      dnsServers: [dns.address],
      demoProject: options.demoProject ?? false,
      // The drift check runs in the CheckDrift bundle here: the platform's own timer stays off.
      domainFlow: { driftCheckIntervalMs: 0 },
    });
    // Lambda's /var/task has no node_modules around it: the copies must not find the repository's.
    const workDir = mkdtempSync(join(tmpdir(), 'lambda-bundles-'));
    for (let dir = workDir; dir !== dirname(dir); dir = dirname(dir)) {
      if (existsSync(join(dirname(dir), 'node_modules'))) {
        throw new Error(`${dirname(dir)}/node_modules would resolve modules a bundle failed to carry: use another TMPDIR`);
      }
    }
    return new BundleStage(assembly, platform, dns, stub, workDir);
  }

  /** The synthesized function behind a key, or a failure naming the path that vanished from the templates. */
  fn(key: FunctionKey): SynthesizedFunction {
    const fn = this.functions.get(FUNCTIONS[key]);
    if (!fn) throw new BundleError(`${key} bundle: no AWS::Lambda::Function at ${FUNCTIONS[key]} in ${this.assembly.dir}`);
    return fn;
  }

  /** The environment the template declares for the function, each CloudFormation reference replaced by its local equivalent. */
  declaredEnv(key: FunctionKey): Record<string, string> {
    const fn = this.fn(key);
    const resolve = localResolver(this.platform, fn.region);
    const env: Record<string, string> = {};
    for (const [name, value] of Object.entries(fn.environment)) {
      try {
        env[name] = this.assembly.resolveValue(fn.stack, value, resolve, pseudoParameters(fn.region));
      } catch (error) {
        throw new BundleError(`${key} bundle: env ${name} ${(error as Error).message}`);
      }
    }
    return env;
  }

  /** The function's process (started and initialised on first use): Lambda's variables, the declared ones, the local network's. */
  lambda(key: FunctionKey): Promise<LambdaProcess> {
    let started = this.processes.get(key);
    if (!started) {
      started = this.startProcess(key);
      this.processes.set(key, started);
    }
    return started;
  }

  /** One invocation of the function's bundle with `event`. */
  async invoke<T = unknown>(key: FunctionKey, event: unknown): Promise<T> {
    return (await this.lambda(key)).invoke<T>(event);
  }

  /**
   * An API answer that is a server error says why only in the function's logs: fail with them.
   * (Answers below 500 are the behaviour under test.)
   */
  async expectNoServerError(key: FunctionKey, status: number, body: string): Promise<void> {
    if (status < 500) return;
    const logs = (await this.lambda(key)).logs().trim();
    throw new BundleError(`${key} bundle answered ${status}: ${body}\n--- its output ---\n${logs}`);
  }

  async stop(): Promise<void> {
    const started = await Promise.allSettled(this.processes.values());
    for (const p of started) if (p.status === 'fulfilled') await p.value.stop();
    this.documents.destroy();
    this.sqs.destroy();
    await this.platform.stop();
    await this.stub.stop();
    await this.dns.stop();
    await this.permissions.stop();
    rmSync(this.workDir, { recursive: true, force: true });
    this.permissions.assertAllowed();
  }

  private async startProcess(key: FunctionKey): Promise<LambdaProcess> {
    const fn = this.fn(key);
    if (!fn.runtime.startsWith('nodejs')) throw new BundleError(`${key} bundle: runtime ${fn.runtime} is not Node.js`);
    const codeDir = this.copyOf(fn.codeDir);
    const env = await this.permissions.route(key, fn, {
      ...lambdaRuntimeEnv(fn, codeDir),
      ...this.declaredEnv(key),
      ...localNetworkEnv({
        dynamodb: this.platform.endpoints.dynamodb,
        sqs: this.platform.endpoints.sqs,
        stub: this.stub.url,
        stubHost: this.stub.hostUrl,
        dns: this.dns.address,
      }),
    });
    return LambdaProcess.start({
      label: key,
      codeDir,
      handler: fn.handler,
      timeoutSeconds: fn.timeoutSeconds,
      env,
      invokedFunctionArn: lambdaArnOf(fn.region, fn.stack, fn.logicalId),
    });
  }

  /** One copy per asset (the flow tasks share theirs), as Lambda unzips it: nothing but the asset's files. */
  private copyOf(assetDir: string): string {
    let copy = this.copies.get(assetDir);
    if (!copy) {
      copy = join(this.workDir, basename(assetDir));
      cpSync(assetDir, copy, { recursive: true });
      this.copies.set(assetDir, copy);
    }
    return copy;
  }
}
