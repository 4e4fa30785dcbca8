import { existsSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { DEFAULT_STACK_PREFIX, metricsNamespaceOf } from '../../config/environment.js';
import { acknowledgeNag } from './nag.js';

/** The repository root (this file is lib/constructs/shared/platform-function.ts). */
export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** The default environment's metrics namespace; each environment's is `metricsNamespaceOf(scope)`. */
export const METRICS_NAMESPACE = DEFAULT_STACK_PREFIX;

/** Lets an ESM bundle use CommonJS dependencies that call `require` (esbuild's ESM output has none). */
export const ESM_REQUIRE_BANNER =
  'import { createRequire as __platformCreateRequire } from \'node:module\';const require = __platformCreateRequire(import.meta.url);';

/**
 * The esbuild options of every Lambda bundle (bench/bundle-cold-start.ts builds with them too).
 * Every dependency is bundled, the AWS SDK included, so package-lock.json's versions run; the SDK's
 * credential chain is replaced by the environment link Lambda uses (why: bench/README.md).
 */
export const LAMBDA_BUNDLE = {
  target: 'node22',
  minify: true,
  /** ESM builds of dependencies first: they tree-shake, their CommonJS builds do not. */
  mainFields: ['module', 'main'],
  banner: ESM_REQUIRE_BANNER,
  external: [],
  /** Resolved from the repository root (NodejsFunction runs esbuild there). */
  alias: { '@aws-sdk/credential-provider-node': './lambda/shared/lambda-credentials.ts' },
} as const;

/** DynamoDB item-level actions a handler can be granted on one table (never table-wide or `*`). */
export type DynamoDbItemAction = 'GetItem' | 'PutItem' | 'UpdateItem' | 'DeleteItem' | 'Query';

export interface PlatformFunctionProps {
  /** The handler module, relative to the repository root. */
  readonly entry: string;
  /** The exported handler function of `entry`. @default 'handler' */
  readonly handler?: string;
  /** Powertools service name: logs, traces and metrics dimension. */
  readonly serviceName: string;
  readonly description?: string;
  /** @default 512 */
  readonly memorySize?: number;
  /** @default Duration.seconds(10) */
  readonly timeout?: Duration;
  /** Besides the Powertools and Node variables this construct sets. */
  readonly environment?: Readonly<Record<string, string>>;
  /** @default logs.RetentionDays.ONE_MONTH (a year for a regime that needs it: CT.CLOUDWATCH.PR.2) */
  readonly logRetention?: logs.RetentionDays;
  /** More esbuild aliases (import specifier → `./path` from the repository root). */
  readonly bundlingAliases?: Readonly<Record<string, string>>;
  readonly reservedConcurrentExecutions?: number;
}

/**
 * Lambda's START/END/REPORT lines are INFO system logs: at WARN they are left out, most of the
 * success path's log bytes (bench/README.md, "cost-per-million"). Needs the JSON log format.
 */
export const SYSTEM_LOG_LEVEL = 'WARN' as const;

/**
 * The house Lambda function: Node.js 22 on arm64, X-Ray, a log group with retention (kept after
 * the stack: it expires anyway), `LAMBDA_BUNDLE` bundling, Powertools environment, and a role that
 * may only write to that log group until `allowItems`/`allow` grant more.
 */
export class PlatformFunction extends Construct implements iam.IGrantable {
  readonly function: NodejsFunction;
  readonly role: iam.Role;
  readonly logGroup: logs.LogGroup;
  readonly grantPrincipal: iam.IPrincipal;

  constructor(scope: Construct, id: string, props: PlatformFunctionProps) {
    super(scope, id);

    const entry = isAbsolute(props.entry) ? props.entry : join(REPO_ROOT, props.entry);
    if (!existsSync(entry)) {
      throw new Error(
        `PlatformFunction ${this.node.path}: handler entry ${props.entry} not found (looked at ${entry})`,
      );
    }

    this.logGroup = new logs.LogGroup(this, 'LogGroup', {
      retention: props.logRetention ?? logs.RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.RETAIN,
    });

    // Not AWSLambdaBasicExecutionRole (logs on `*`).
    this.role = new iam.Role(this, 'Role', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `Execution role of ${this.node.path}`,
    });
    this.logGroup.grantWrite(this.role);
    this.grantPrincipal = this.role;

    this.function = new NodejsFunction(this, 'Function', {
      entry,
      handler: props.handler ?? 'handler',
      projectRoot: REPO_ROOT,
      depsLockFilePath: join(REPO_ROOT, 'package-lock.json'),
      runtime: lambda.Runtime.NODEJS_22_X,
      architecture: lambda.Architecture.ARM_64,
      tracing: lambda.Tracing.ACTIVE,
      memorySize: props.memorySize ?? 512,
      timeout: props.timeout ?? Duration.seconds(10),
      description: props.description,
      role: this.role,
      logGroup: this.logGroup,
      loggingFormat: lambda.LoggingFormat.JSON,
      systemLogLevelV2: lambda.SystemLogLevel[SYSTEM_LOG_LEVEL],
      reservedConcurrentExecutions: props.reservedConcurrentExecutions,
      environment: {
        POWERTOOLS_SERVICE_NAME: props.serviceName,
        // Per environment: staging's metrics never feed production's alarms.
        POWERTOOLS_METRICS_NAMESPACE: metricsNamespaceOf(this),
        NODE_OPTIONS: '--enable-source-maps',
        ...props.environment,
      },
      bundling: {
        minify: LAMBDA_BUNDLE.minify,
        sourceMap: true,
        sourcesContent: false,
        target: LAMBDA_BUNDLE.target,
        format: OutputFormat.ESM,
        mainFields: [...LAMBDA_BUNDLE.mainFields],
        banner: LAMBDA_BUNDLE.banner,
        externalModules: [...LAMBDA_BUNDLE.external],
        esbuildArgs: {
          '--alias': Object.entries({ ...LAMBDA_BUNDLE.alias, ...props.bundlingAliases }).map(
            ([from, to]) => `${from}=${to}`,
          ),
        },
      },
    });

    // Tracing ACTIVE makes CDK add xray:PutTraceSegments/PutTelemetryRecords on `*` to this role.
    acknowledgeNag(this.role, {
      'IAM5[Resource::*]': 'Only the X-Ray write actions added for active tracing (xray:PutTraceSegments, xray:PutTelemetryRecords) use Resource "*": X-Ray has no resource-level permissions for them. Every other statement of this role names its resources.',
    });
    acknowledgeNag(this.function, {
      L1: 'Node.js 22 is pinned on purpose (design: NODEJS_22_X): the handlers and their pinned dependencies (Powertools 2.35, middy 6) are built and tested for it, and it is a supported LTS runtime. Moving to Node.js 24 is a deliberate upgrade, not a drift.',
    });
  }

  /** Lets the function perform the given item-level actions on one table (its ARN only, no indexes). */
  allowItems(table: { readonly tableArn: string }, ...actions: DynamoDbItemAction[]): void {
    this.allow(
      actions.map((a) => `dynamodb:${a}`),
      [table.tableArn],
    );
  }

  /** Adds one Allow statement with exactly these actions on exactly these resources. */
  allow(actions: string[], resources: string[]): void {
    if (resources.length === 0 || resources.includes('*')) {
      throw new Error(`PlatformFunction ${this.node.path}: grant named resources, not "*"`);
    }
    this.role.addToPrincipalPolicy(new iam.PolicyStatement({ actions, resources }));
  }
}
