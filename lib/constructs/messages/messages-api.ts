import { CfnOutput, Duration, RemovalPolicy, Stack, Token, Validations } from 'aws-cdk-lib';
import * as apigw from 'aws-cdk-lib/aws-apigateway';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as cwActions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as sns from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { usageIdentifierBackstop, PLAN_IDS, type PlanId, type PlatformConfig, type RateLimits } from '../../config/index.js';
import { METRICS_NAMESPACE, PlatformFunction } from '../shared/platform-function.js';
import { apigatewayArn } from '../shared/arns.js';
import { accountUniqueName } from '../shared/names.js';
import { ApiFirewall } from './api-firewall.js';
import { GATEWAY_RESPONSES, type GatewayResponseDefinition, gatewayProblemBody } from '../../../contracts/gateway-responses.js';
import { pooledUsageKeyValue } from './pooled-usage-keys.js';
import type { MessagesDataResources } from './messages-data.js';
import { ENV, HANDLER_ENTRIES, TABLE_KEYS } from '../../../contracts/messages.js';

/** The usage identifiers the authorizer can return: one per plan, plus anonymous callers. */
export const USAGE_IDENTIFIERS = [...PLAN_IDS, 'anonymous'] as const;
export type UsageIdentifier = (typeof USAGE_IDENTIFIERS)[number];

/** The deployed stage; it is also the version in the URL. */
export const STAGE_NAME = 'v1';

/**
 * Stack outputs (fixed logical ids) from which the operator CLI builds the control plane's
 * adapters against a deployed stack (ApiGatewayUsagePlanGateway, DynamoDB stores).
 */
export const CONTROL_PLANE_OUTPUTS = {
  restApiId: 'RestApiId',
  stageName: 'StageName',
  freeUsagePlanId: 'FreeUsagePlanId',
  proUsagePlanId: 'ProUsagePlanId',
  businessUsagePlanId: 'BusinessUsagePlanId',
  operatorPolicyArn: 'OperatorPolicyArn',
} as const;
export type ControlPlaneOutput = keyof typeof CONTROL_PLANE_OUTPUTS;

/** The API Gateway control-plane paths the operator policy covers (IAM `*` also matches `/`). */
export const OPERATOR_APIGATEWAY_PATHS = ['/apikeys', '/apikeys/*', '/usageplans', '/usageplans/*'] as const;
/** The API Gateway verbs the operator policy allows on those paths. */
export const OPERATOR_APIGATEWAY_VERBS = ['GET', 'POST', 'PATCH', 'DELETE'] as const;

export interface MessagesApiProps {
  readonly config: PlatformConfig;
  /** The tables and queues (from the stateful stack). */
  readonly data: MessagesDataResources;
  /**
   * Where alarms notify (alarm actions).
   * @default - alarms have no actions; they are visible in CloudWatch only
   */
  readonly alarmTopic?: sns.ITopic;
  /**
   * API Gateway execution logging level of every method (stage `*\/*`).
   * @default apigw.MethodLoggingLevel.ERROR
   */
  readonly executionLogLevel?: apigw.MethodLoggingLevel;
  /**
   * Whether this API sets the account-wide (per region) API Gateway CloudWatch Logs role, which
   * execution logging needs. Set to false when the account already has one managed elsewhere.
   * The role and the account setting are retained when the stack is deleted, since other APIs of
   * the account may rely on them.
   * @default true
   */
  readonly manageCloudWatchRole?: boolean;
  /**
   * Retention of the access logs.
   * @default logs.RetentionDays.THREE_MONTHS
   */
  readonly accessLogRetention?: logs.RetentionDays;
  /**
   * The API latency alarm fires when the p99 of the REST API's latency (API Gateway `Latency`,
   * authorizer and integration included) is above this, in milliseconds, for two 5-minute periods
   * in a row.
   * @default 1000
   */
  readonly apiLatencyP99ThresholdMs?: number;
}

/** Powertools service names (the `service` dimension of the platform's custom metrics). */
const SERVICES = { api: 'messages-api', worker: 'messages-worker' } as const;

/**
 * Every request rejection the handlers count (`RequestRejected`, dimension `reason`), by reason,
 * one line each: the SEARCH expression of the dashboard also shows reasons added later.
 */
const REJECTION_SEARCH = `SEARCH('{${METRICS_NAMESPACE},reason,service} MetricName="RequestRejected"', 'Sum', 300)`;

/** The gateway response template: the problem body of the definition, `$context.requestId` substituted by API Gateway. */
export function gatewayResponseTemplate(def: GatewayResponseDefinition): string {
  return gatewayProblemBody(def, '$context.requestId');
}

/** Gateway response header values are mapping expressions: static values must be single-quoted. */
export function gatewayResponseHeaders(def: GatewayResponseDefinition): Record<string, string> {
  return Object.fromEntries(
    Object.entries(def.headers).map(([name, value]) => {
      if (value.includes('\'')) throw new Error(`gateway response ${def.type}: header ${name} must not contain a quote`);
      return [name, `'${value}'`];
    }),
  );
}

/**
 * The Messages API: a REST API whose every request goes through our REQUEST authorizer and then
 * to one of our handlers (send, get, or the fallback that answers 404/405 with rate-limit
 * headers), usage plans as the best-effort backstop per plan, the queue worker, gateway
 * responses as RFC 9457 problems, and alarms.
 */
export class MessagesApi extends Construct {
  readonly api: apigw.RestApi;
  readonly stage: apigw.Stage;
  /** The AWS WAF web ACL on the stage (flood protection before any Lambda runs). */
  readonly firewall: ApiFirewall;
  readonly authorizer: apigw.RequestAuthorizer;
  readonly functions: {
    readonly authorizer: PlatformFunction;
    readonly sendMessage: PlatformFunction;
    readonly getMessage: PlatformFunction;
    readonly fallback: PlatformFunction;
    readonly worker: PlatformFunction;
  };

  /**
   * The backstop usage plan and its pooled internal API key, per usage identifier. Customer keys
   * normally get their own internal key in their plan's usage plan (created at run time by the
   * control plane); the pooled key serves anonymous callers, Free/Pro keys created once the API
   * key quota is reached, and any key record without its own internal key.
   */
  readonly usagePlans: Readonly<Record<UsageIdentifier, { plan: apigw.UsagePlan; key: apigw.ApiKey }>>;
  /** What the control plane needs to run against this API (also stack outputs, see CONTROL_PLANE_OUTPUTS). */
  readonly controlPlane: {
    readonly restApiId: string;
    readonly stageName: string;
    readonly standardPlanIds: { readonly free: string; readonly pro: string; readonly business: string };
    /** Attach to an operator role to run the control plane (operator CLI) against this stack. */
    readonly operatorPolicy: iam.ManagedPolicy;
  };

  /** The control-plane outputs, by name. */
  readonly controlPlaneOutputs: Readonly<Record<ControlPlaneOutput, CfnOutput>>;
  readonly alarms: {
    readonly deadLetterQueue: cloudwatch.Alarm;
    readonly serverErrors: cloudwatch.Alarm;
    readonly workerErrors: cloudwatch.Alarm;
    /** Any function of the API was throttled. */
    readonly throttles: cloudwatch.Alarm;
    /** The API's p99 latency is above `apiLatencyP99ThresholdMs`. */
    readonly apiLatency: cloudwatch.Alarm;
    /** The oldest message of the queue waits for 5 minutes or more. */
    readonly queueAge: cloudwatch.Alarm;
  };

  /** The operators' dashboard, named `<stackName>-<region>-messages` (dashboard names are unique per account). */
  readonly dashboard: cloudwatch.Dashboard;

  constructor(scope: Construct, id: string, props: MessagesApiProps) {
    super(scope, id);
    const { config, data } = props;
    const stack = Stack.of(this);
    const { tables, queue, deadLetterQueue } = data;

    const limitsConfig = JSON.stringify({ plans: config.plans, anonymous: config.anonymous });
    const messagesConfig = JSON.stringify(config.messages);

    // ---- Functions -------------------------------------------------------------------------
    const authorizerFn = new PlatformFunction(this, 'Authorizer', {
      entry: HANDLER_ENTRIES.authorizer,
      serviceName: 'messages-authorizer',
      description: 'REQUEST authorizer of the Messages API: API key lookup, always Allow with a usage identifier',
      environment: {
        [ENV.apiKeysTable]: tables.apiKeys.tableName,
        [ENV.limitsConfig]: limitsConfig,
        [ENV.keyCacheSeconds]: String(config.auth.keyCacheSeconds),
      },
    });
    authorizerFn.allowItems(tables.apiKeys, 'GetItem');

    const sendMessageFn = new PlatformFunction(this, 'SendMessage', {
      entry: HANDLER_ENTRIES.sendMessage,
      serviceName: 'messages-api',
      description: 'POST /messages: limiter, validation, idempotency, record, enqueue, 202',
      environment: {
        [ENV.rateLimitsTable]: tables.rateLimits.tableName,
        [ENV.messagesTable]: tables.messages.tableName,
        [ENV.idempotencyTable]: tables.idempotency.tableName,
        [ENV.queueUrl]: queue.queueUrl,
        [ENV.limitsConfig]: limitsConfig,
        [ENV.messagesConfig]: messagesConfig,
      },
    });
    sendMessageFn.allowItems(tables.rateLimits, 'GetItem', 'PutItem', 'UpdateItem');
    sendMessageFn.allowItems(tables.messages, 'GetItem', 'PutItem', 'DeleteItem');
    sendMessageFn.allowItems(tables.idempotency, 'GetItem', 'PutItem', 'DeleteItem');
    // The queue uses SQS-managed SSE (no customer KMS key), so no kms:* is needed.
    sendMessageFn.allow(['sqs:SendMessage'], [queue.queueArn]);

    const getMessageFn = new PlatformFunction(this, 'GetMessage', {
      entry: HANDLER_ENTRIES.getMessage,
      serviceName: 'messages-api',
      description: 'GET /messages/{id}: limiter, then the message of the caller account',
      environment: {
        [ENV.rateLimitsTable]: tables.rateLimits.tableName,
        [ENV.messagesTable]: tables.messages.tableName,
        [ENV.limitsConfig]: limitsConfig,
        [ENV.messagesConfig]: messagesConfig,
      },
    });
    getMessageFn.allowItems(tables.rateLimits, 'GetItem', 'PutItem', 'UpdateItem');
    getMessageFn.allowItems(tables.messages, 'GetItem');

    const fallbackFn = new PlatformFunction(this, 'Fallback', {
      entry: HANDLER_ENTRIES.fallback,
      serviceName: 'messages-api',
      description: 'Every other method and path: 401/404/405 problems with rate-limit headers',
      environment: {
        [ENV.rateLimitsTable]: tables.rateLimits.tableName,
        [ENV.limitsConfig]: limitsConfig,
        [ENV.messagesConfig]: messagesConfig,
      },
    });
    fallbackFn.allowItems(tables.rateLimits, 'GetItem', 'PutItem', 'UpdateItem');

    const workerFn = new PlatformFunction(this, 'Worker', {
      entry: HANDLER_ENTRIES.worker,
      serviceName: 'messages-worker',
      description: 'Queue worker: processes messages with partial batch responses',
      timeout: data.workerTimeout,
      // Kept for the worker during an API flood (0: none); see config protection.reservedConcurrency.
      reservedConcurrentExecutions: config.protection.reservedConcurrency.worker || undefined,
      environment: {
        [ENV.messagesTable]: tables.messages.tableName,
        [ENV.messagesConfig]: messagesConfig,
      },
    });
    workerFn.allowItems(tables.messages, 'GetItem', 'UpdateItem');
    // Grants the consumer actions (receive, delete, change visibility, attributes) on this queue only.
    // With reserved concurrency, the event source's maximum concurrency stays within it: pollers
    // beyond it would be throttled, and a throttled batch returns to the queue and counts a receive
    // towards the dead-letter threshold.
    const workerReserved = config.protection.reservedConcurrency.worker;
    workerFn.function.addEventSource(
      new SqsEventSource(queue, {
        batchSize: 10,
        maxBatchingWindow: Duration.seconds(1),
        reportBatchItemFailures: true,
        ...(workerReserved >= 2 ? { maxConcurrency: Math.min(workerReserved, 1000) } : {}),
      }),
    );

    this.functions = {
      authorizer: authorizerFn,
      sendMessage: sendMessageFn,
      getMessage: getMessageFn,
      fallback: fallbackFn,
      worker: workerFn,
    };

    // ---- REST API ----------------------------------------------------------------------------
    const accessLogs = new logs.LogGroup(this, 'AccessLogs', {
      retention: props.accessLogRetention ?? logs.RetentionDays.THREE_MONTHS,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    const F = apigw.AccessLogField;
    const accessLogFormat = apigw.AccessLogFormat.custom(
      JSON.stringify({
        requestId: F.contextRequestId(),
        extendedRequestId: F.contextExtendedRequestId(),
        ip: F.contextIdentitySourceIp(),
        userAgent: F.contextIdentityUserAgent(),
        requestTime: F.contextRequestTime(),
        httpMethod: F.contextHttpMethod(),
        resourcePath: F.contextResourcePath(),
        path: F.contextPath(),
        protocol: F.contextProtocol(),
        status: F.contextStatus(),
        responseLength: F.contextResponseLength(),
        responseLatency: F.contextResponseLatency(),
        integrationStatus: F.contextIntegrationStatus(),
        integrationLatency: F.contextIntegrationLatency(),
        authorizerStatus: F.contextAuthorizerStatus(),
        authorizerLatency: F.contextAuthorizerLatency(),
        authorizerError: F.contextAuthorizerError(),
        principalId: F.contextAuthorizerPrincipalId(),
        // The id of the internal usage-plan key (never a customer secret), i.e. the plan that was metered.
        usageKeyId: F.contextIdentityApiKeyId(),
        errorMessage: F.contextErrorMessage(),
        errorResponseType: F.contextErrorResponseType(),
        xrayTraceId: F.contextXrayTraceId(),
      }),
    );

    // Every request, also one with no Authorization header, must reach our authorizer and then our
    // handlers, so that even a 401 carries the rate-limit headers our limiter computes (anonymous
    // callers are budgeted per IP). Hence no identity sources (with one, API Gateway answers 401
    // itself when the header is missing) and no API Gateway result cache (TTL 0; a cache needs
    // identity sources). The authorizer caches key lookups in memory for
    // config.auth.keyCacheSeconds instead, and ALWAYS returns Allow: known keys with their plan's
    // usage identifier, anonymous callers with principal "anonymous" and the anonymous usage
    // identifier. The handlers answer 401 for anonymous callers.
    this.authorizer = new apigw.RequestAuthorizer(this, 'RequestAuthorizer', {
      handler: authorizerFn.function,
      identitySources: [],
      resultsCacheTtl: Duration.seconds(0),
    });
    // CDK renders the empty identity source list as "", which API Gateway may reject; omit it.
    (this.authorizer.node.defaultChild as apigw.CfnAuthorizer).addPropertyDeletionOverride('IdentitySource');

    const manageCloudWatchRole = props.manageCloudWatchRole ?? true;
    this.api = new apigw.RestApi(this, 'RestApi', {
      restApiName: `${stack.stackName}-messages`,
      description: 'Messages API (authorizer-sourced API keys; usage plans are the backstop of the exact limiter)',
      endpointConfiguration: { types: [apigw.EndpointType.REGIONAL] },
      apiKeySourceType: apigw.ApiKeySourceType.AUTHORIZER,
      cloudWatchRole: manageCloudWatchRole,
      cloudWatchRoleRemovalPolicy: manageCloudWatchRole ? RemovalPolicy.RETAIN : undefined,
      deployOptions: {
        stageName: STAGE_NAME,
        accessLogDestination: new apigw.LogGroupLogDestination(accessLogs),
        accessLogFormat,
        tracingEnabled: true,
        loggingLevel: props.executionLogLevel ?? apigw.MethodLoggingLevel.ERROR,
        // Data trace would log full requests, Authorization headers (customer secrets) included.
        dataTraceEnabled: false,
        metricsEnabled: false,
        // All callers together: the Messages API cannot take the account's whole REST budget.
        throttlingRateLimit: config.protection.stageThrottle.rateLimit,
        throttlingBurstLimit: config.protection.stageThrottle.burstLimit,
      },
      defaultMethodOptions: {
        authorizer: this.authorizer,
        authorizationType: apigw.AuthorizationType.CUSTOM,
        // The authorizer returns the usage identifier: this makes the plan's backstop apply.
        apiKeyRequired: true,
      },
    });
    this.stage = this.api.deploymentStage;
    this.firewall = new ApiFirewall(this, 'Firewall', { config, stage: this.stage });

    const integration = (fn: PlatformFunction) =>
      new apigw.LambdaIntegration(fn.function, { proxy: true, allowTestInvoke: false });
    const fallback = integration(fallbackFn);

    // Specific methods win; ANY catches every method not declared on the same resource.
    this.api.root.addMethod('ANY', fallback);
    this.api.root.addResource('{proxy+}').addMethod('ANY', fallback);
    const messages = this.api.root.addResource('messages');
    messages.addMethod('POST', integration(sendMessageFn));
    messages.addMethod('ANY', fallback);
    const message = messages.addResource('{id}');
    message.addMethod('GET', integration(getMessageFn));
    message.addMethod('ANY', fallback);
    // Deeper paths under /messages/{id} do not fall back to the root proxy: catch them here.
    message.addResource('{proxy+}').addMethod('ANY', fallback);

    // ---- Gateway responses -------------------------------------------------------------------
    for (const def of GATEWAY_RESPONSES) {
      this.api.addGatewayResponse(`Response${def.type}`, {
        type: apigw.ResponseType.of(def.type),
        statusCode: String(def.statusCode),
        responseHeaders: gatewayResponseHeaders(def),
        templates: { 'application/json': gatewayResponseTemplate(def) },
      });
    }

    // ---- Usage plans (backstop) with one pooled internal API key each -----------------------
    // Usage-plan throttles and quotas apply per API key, so the control plane gives each customer
    // key its own internal key in its plan's usage plan (and each Enterprise account its own usage
    // plan), at run time. The CDK-created key of each plan is the pooled one: anonymous callers,
    // Free/Pro keys created once the 10,000 API keys per region quota is reached, and key records
    // without the value of an internal key of their own use it (POOLED_USAGE_KEYS).
    const limitsOf = (u: UsageIdentifier): RateLimits =>
      u === 'anonymous' ? config.anonymous : config.plans[u as PlanId].limits;
    const usagePlans = {} as Record<UsageIdentifier, { plan: apigw.UsagePlan; key: apigw.ApiKey }>;
    const pooledUsageKeys = {} as Record<UsageIdentifier, string>;
    for (const u of USAGE_IDENTIFIERS) {
      const limits = limitsOf(u);
      const backstop = usageIdentifierBackstop(u, config);
      const suffix = u.charAt(0).toUpperCase() + u.slice(1);
      const plan = new apigw.UsagePlan(this, `UsagePlan${suffix}`, {
        name: `${stack.stackName}-${u}`,
        description: `Backstop for "${u}" (${limits.perMinute}/min, ${limits.perDay}/day); the exact limiter is ours`,
        throttle: { rateLimit: backstop.rateLimit, burstLimit: backstop.burstLimit },
        quota: { limit: backstop.quotaPerDay, period: apigw.Period.DAY },
        apiStages: [{ api: this.api, stage: this.stage }],
      });
      // A value known at synth (not a secret, see pooledUsageKeyValue) reaches the authorizer in its
      // environment: no GetApiKey on the request path. Customer keys never live here.
      pooledUsageKeys[u] = pooledUsageKeyValue(stack.stackName, u);
      const key = new apigw.ApiKey(this, `UsageKey${suffix}`, {
        description: `Pooled internal usage identifier of the "${u}" usage plan, for callers without their own internal key (not a customer key)`,
        enabled: true,
        value: pooledUsageKeys[u],
      });
      plan.addApiKey(key);
      usagePlans[u] = { plan, key };
    }
    this.usagePlans = usagePlans;

    authorizerFn.addEnvironment(ENV.pooledUsageKeys, JSON.stringify(pooledUsageKeys));
    // No API Gateway grant: the authorizer reads each key's usage identifier from its record and
    // the pooled ones from its environment, never from the management API (low, fixed quotas).

    // ---- Control plane (operator CLI) --------------------------------------------------------
    const operatorPolicy = this.createOperatorPolicy(stack, tables, queue, deadLetterQueue);
    this.controlPlane = {
      restApiId: this.api.restApiId,
      stageName: this.stage.stageName,
      standardPlanIds: {
        free: usagePlans.free.plan.usagePlanId,
        pro: usagePlans.pro.plan.usagePlanId,
        business: usagePlans.business.plan.usagePlanId,
      },
      operatorPolicy,
    };

    // ---- Alarms ------------------------------------------------------------------------------
    const deadLetterAlarm = new cloudwatch.Alarm(this, 'DeadLetterQueueAlarm', {
      alarmDescription:
        'Messages were dead-lettered (status "failed") after exhausting their receives. Inspect them, fix the cause, then redrive the dead-letter queue to the messages queue.',
      metric: deadLetterQueue.metricApproximateNumberOfMessagesVisible({
        period: Duration.minutes(1),
        statistic: cloudwatch.Stats.MAXIMUM,
      }),
      threshold: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    const serverErrorAlarm = new cloudwatch.Alarm(this, 'ServerErrorAlarm', {
      alarmDescription: 'The Messages API answered 5XX (handler, authorizer or integration failures).',
      metric: this.api.metricServerError({ period: Duration.minutes(5), statistic: cloudwatch.Stats.SUM }),
      threshold: 5,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    const workerErrorAlarm = new cloudwatch.Alarm(this, 'WorkerErrorAlarm', {
      alarmDescription:
        'The queue worker failed whole invocations (errors or timeouts, not per-message failures); the batch will be retried.',
      metric: workerFn.function.metricErrors({ period: Duration.minutes(5), statistic: cloudwatch.Stats.SUM }),
      threshold: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    const fiveMinutes = Duration.minutes(5);
    const functionEntries = Object.entries(this.functions);
    // One series per function, summed; a function that was not invoked reports no data (FILL 0).
    const throttleAlarm = new cloudwatch.Alarm(this, 'LambdaThrottleAlarm', {
      alarmDescription:
        'A function of the Messages API (authorizer, handlers or worker) was throttled: the account or a reserved concurrency limit was reached. Throttled API calls fail with 5XX/429; a throttled worker delays the queue.',
      metric: new cloudwatch.MathExpression({
        expression: functionEntries.map((_, i) => `FILL(t${i}, 0)`).join(' + '),
        usingMetrics: Object.fromEntries(
          functionEntries.map(([, fn], i) => [`t${i}`, fn.function.metricThrottles({ statistic: cloudwatch.Stats.SUM })]),
        ),
        label: 'Throttles (all functions)',
        period: fiveMinutes,
      }),
      threshold: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    const latencyThresholdMs = props.apiLatencyP99ThresholdMs ?? 1000;
    const apiLatencyAlarm = new cloudwatch.Alarm(this, 'ApiLatencyAlarm', {
      alarmDescription: `The p99 latency of the Messages API (API Gateway Latency: authorizer, handler and integration) is above ${latencyThresholdMs} ms for 10 minutes.`,
      metric: this.api.metricLatency({ period: fiveMinutes, statistic: cloudwatch.Stats.p(99) }),
      threshold: latencyThresholdMs,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 2,
      datapointsToAlarm: 2,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    const queueAgeAlarm = new cloudwatch.Alarm(this, 'QueueAgeAlarm', {
      alarmDescription:
        'The oldest message of the messages queue has waited 5 minutes or more: the worker is not keeping up, is failing or throttled, or its event source mapping is disabled.',
      metric: queue.metricApproximateAgeOfOldestMessage({ period: fiveMinutes, statistic: cloudwatch.Stats.MAXIMUM }),
      threshold: Duration.minutes(5).toSeconds(),
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    this.alarms = {
      deadLetterQueue: deadLetterAlarm,
      serverErrors: serverErrorAlarm,
      workerErrors: workerErrorAlarm,
      throttles: throttleAlarm,
      apiLatency: apiLatencyAlarm,
      queueAge: queueAgeAlarm,
    };
    if (props.alarmTopic) {
      const action = new cwActions.SnsAction(props.alarmTopic);
      for (const alarm of Object.values(this.alarms)) {
        alarm.addAlarmAction(action);
        alarm.addOkAction(action);
      }
    }

    // ---- Dashboard ---------------------------------------------------------------------------
    this.dashboard = this.createDashboard(stack, data, latencyThresholdMs);

    // ---- Outputs -----------------------------------------------------------------------------
    const output = (name: string, value: string, description: string) => {
      const cfnOutput = new CfnOutput(this, name, { value, description });
      cfnOutput.overrideLogicalId(name);
      return cfnOutput;
    };
    output('ApiUrl', this.api.url, 'Base URL of the Messages API (stage v1)');
    output('QueueUrl', queue.queueUrl, 'Messages queue');
    output('DeadLetterQueueUrl', deadLetterQueue.queueUrl, 'Dead-letter queue of the messages queue (redrive source)');
    output('ApiKeysTableName', tables.apiKeys.tableName, 'API keys table');
    output('AccountsTableName', tables.accounts.tableName, 'Accounts table');
    output('RateLimitsTableName', tables.rateLimits.tableName, 'Rate limiter table');
    output('MessagesTableName', tables.messages.tableName, 'Messages table');
    output('IdempotencyTableName', tables.idempotency.tableName, 'Idempotency table');
    output('DashboardName', this.dashboard.dashboardName, 'CloudWatch dashboard of the Messages API (operators)');
    const cp = this.controlPlane;
    this.controlPlaneOutputs = {
      restApiId: output(CONTROL_PLANE_OUTPUTS.restApiId, cp.restApiId, 'REST API id (control plane: usage plans)'),
      stageName: output(CONTROL_PLANE_OUTPUTS.stageName, cp.stageName, 'Stage of the REST API the usage plans apply to'),
      freeUsagePlanId: output(CONTROL_PLANE_OUTPUTS.freeUsagePlanId, cp.standardPlanIds.free, 'Usage plan of Free keys'),
      proUsagePlanId: output(CONTROL_PLANE_OUTPUTS.proUsagePlanId, cp.standardPlanIds.pro, 'Usage plan of Pro keys'),
      businessUsagePlanId: output(
        CONTROL_PLANE_OUTPUTS.businessUsagePlanId,
        cp.standardPlanIds.business,
        'Usage plan of Business keys',
      ),
      operatorPolicyArn: output(
        CONTROL_PLANE_OUTPUTS.operatorPolicyArn,
        cp.operatorPolicy.managedPolicyArn,
        'Managed policy an operator role attaches to run the control plane (operator CLI) against this stack',
      ),
    };

    this.acknowledgeNagFindings(manageCloudWatchRole);
  }

  /**
   * The operators' dashboard: traffic and latency of the API, what the handlers accepted and
   * rejected (by reason), what the worker did, the limiter's latency, the queues, and the health of
   * every function. The custom metrics are the Powertools ones (namespace METRICS_NAMESPACE,
   * dimension `service`).
   */
  private createDashboard(stack: Stack, data: MessagesDataResources, latencyThresholdMs: number): cloudwatch.Dashboard {
    const period = Duration.minutes(5);
    const sum = cloudwatch.Stats.SUM;
    const custom = (metricName: string, service: string, label: string, statistic: string = sum) =>
      new cloudwatch.Metric({
        namespace: METRICS_NAMESPACE,
        metricName,
        dimensionsMap: { service },
        statistic,
        label,
        period,
      });
    const perFunction = (metricOf: (fn: lambda.IFunction) => cloudwatch.IMetric) =>
      Object.entries(this.functions).map(([name, fn]) => {
        const metric = metricOf(fn.function) as cloudwatch.Metric;
        return metric.with({ label: name, period });
      });
    const graph = (title: string, left: cloudwatch.IMetric[], extra: Partial<cloudwatch.GraphWidgetProps> = {}) =>
      new cloudwatch.GraphWidget({ title, left, width: 8, height: 6, ...extra });

    const dashboard = new cloudwatch.Dashboard(this, 'Dashboard', {
      // Dashboard names are unique per account, across regions.
      dashboardName: accountUniqueName(stack, 'messages', 255),
      defaultInterval: Duration.hours(3),
    });
    dashboard.addWidgets(
      new cloudwatch.TextWidget({
        markdown: `# Messages API (${stack.stackName})\nAlarms and what to do: README, "Operations". Custom metrics: namespace \`${METRICS_NAMESPACE}\`, by \`service\`.`,
        width: 12,
        height: 3,
      }),
      new cloudwatch.AlarmStatusWidget({
        title: 'Alarms',
        alarms: Object.values(this.alarms),
        width: 12,
        height: 3,
      }),
    );
    dashboard.addWidgets(
      graph('API requests, 4XX and 5XX', [
        this.api.metricCount({ period, statistic: sum, label: 'Requests' }),
        this.api.metricClientError({ period, statistic: sum, label: '4XX' }),
        this.api.metricServerError({ period, statistic: sum, label: '5XX' }),
      ]),
      graph(
        'API latency (p50, p99)',
        [
          this.api.metricLatency({ period, statistic: cloudwatch.Stats.p(50), label: 'p50' }),
          this.api.metricLatency({ period, statistic: cloudwatch.Stats.p(99), label: 'p99' }),
        ],
        { leftAnnotations: [{ value: latencyThresholdMs, label: 'p99 alarm' }] },
      ),
      graph('Accepted vs rejected (by reason)', [
        custom('MessageAccepted', SERVICES.api, 'accepted'),
        new cloudwatch.MathExpression({
          expression: REJECTION_SEARCH,
          label: 'rejected: ${PROP(\'Dim.reason\')}',
          period,
        }),
      ]),
    );
    dashboard.addWidgets(
      graph('Worker: processed, failed, orphans', [
        custom('MessageProcessed', SERVICES.worker, 'processed'),
        custom('MessageFailed', SERVICES.worker, 'failed'),
        custom('OrphanDropped', SERVICES.worker, 'orphans dropped'),
      ]),
      graph('Limiter latency (p50, p99)', [
        custom('LimiterLatency', SERVICES.api, 'p50', cloudwatch.Stats.p(50)),
        custom('LimiterLatency', SERVICES.api, 'p99', cloudwatch.Stats.p(99)),
      ]),
      graph(
        'Queue depth and age of oldest message',
        [
          data.queue.metricApproximateNumberOfMessagesVisible({ period, statistic: cloudwatch.Stats.MAXIMUM, label: 'visible' }),
          data.queue.metricApproximateNumberOfMessagesNotVisible({
            period,
            statistic: cloudwatch.Stats.MAXIMUM,
            label: 'in flight',
          }),
        ],
        {
          right: [
            data.queue.metricApproximateAgeOfOldestMessage({
              period,
              statistic: cloudwatch.Stats.MAXIMUM,
              label: 'age of oldest (s)',
            }),
          ],
          rightAnnotations: [{ value: Duration.minutes(5).toSeconds(), label: 'age alarm' }],
        },
      ),
    );
    dashboard.addWidgets(
      graph(
        'DLQ depth',
        [
          data.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
            period,
            statistic: cloudwatch.Stats.MAXIMUM,
            label: 'dead-lettered',
          }),
        ],
        { leftAnnotations: [{ value: 1, label: 'DLQ alarm' }] },
      ),
      graph('Lambda errors', perFunction((fn) => fn.metricErrors({ statistic: sum }))),
      graph('Lambda throttles', perFunction((fn) => fn.metricThrottles({ statistic: sum }))),
    );
    dashboard.addWidgets(
      graph('Lambda duration (p99)', perFunction((fn) => fn.metricDuration({ statistic: cloudwatch.Stats.p(99) }))),
      graph('Concurrent executions', [
        ...perFunction((fn) => fn.metric('ConcurrentExecutions', { statistic: cloudwatch.Stats.MAXIMUM })),
        lambda.Function.metricAllConcurrentExecutions({
          period,
          statistic: cloudwatch.Stats.MAXIMUM,
          label: 'account (region)',
        }),
      ]),
    );
    return dashboard;
  }

  /**
   * What an operator role needs to run the control plane (accounts, keys, plans, bans, usage)
   * against this stack, and nothing more: item access to the three tables the control plane uses,
   * the API Gateway API keys and usage plans (the internal keys and Enterprise usage plans it
   * manages), and reading this stack's outputs.
   */
  private createOperatorPolicy(
    stack: Stack,
    tables: MessagesDataResources['tables'],
    queue: MessagesDataResources['queue'],
    deadLetterQueue: MessagesDataResources['deadLetterQueue'],
  ): iam.ManagedPolicy {
    const apigatewayResources = OPERATOR_APIGATEWAY_PATHS.map((path) => apigatewayArn(stack, path));
    const tagsArn = apigatewayArn(stack, '/tags/*');
    const policy = new iam.ManagedPolicy(this, 'OperatorPolicy', {
      description: `Run the keys and plans control plane (operator CLI) against ${stack.stackName}: API key records, accounts, limiter items, internal API Gateway keys and usage plans, stack outputs, and the DLQ redrive.`,
      statements: [
        // Scan: `keys backfill-usage-keys` without --account reads every key record.
        new iam.PolicyStatement({
          sid: 'ApiKeyRecords',
          actions: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:Scan'],
          resources: [tables.apiKeys.tableArn],
        }),
        new iam.PolicyStatement({
          sid: 'ApiKeysOfAnAccount',
          actions: ['dynamodb:Query'],
          resources: [`${tables.apiKeys.tableArn}/index/${TABLE_KEYS.apiKeys.accountIndex.name}`],
        }),
        new iam.PolicyStatement({
          sid: 'Accounts',
          actions: ['dynamodb:GetItem', 'dynamodb:PutItem'],
          resources: [tables.accounts.tableArn],
        }),
        new iam.PolicyStatement({
          sid: 'LimiterItems',
          actions: ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
          resources: [tables.rateLimits.tableArn],
        }),
        new iam.PolicyStatement({
          sid: 'ApiKeysAndUsagePlans',
          actions: OPERATOR_APIGATEWAY_VERBS.map((verb) => `apigateway:${verb}`),
          resources: apigatewayResources,
        }),
        // CreateApiKey and CreateUsagePlan with tags (tag on create) are also authorized as
        // apigateway:PUT on the tags resource (Service Authorization Reference: CreateApiKey →
        // apigateway:POST, apigateway:PUT).
        new iam.PolicyStatement({
          sid: 'TagOnCreate',
          actions: ['apigateway:PUT'],
          resources: [tagsArn],
        }),
        new iam.PolicyStatement({
          sid: 'StackOutputs',
          actions: ['cloudformation:DescribeStacks'],
          resources: [stack.stackId],
        }),
        // `dlq redrive`: an SQS message move task from the DLQ back to the queue (SQS-managed SSE,
        // so no KMS grant is needed).
        new iam.PolicyStatement({
          sid: 'RedriveFromDeadLetterQueue',
          actions: ['sqs:GetQueueAttributes', 'sqs:StartMessageMoveTask', 'sqs:ReceiveMessage', 'sqs:DeleteMessage'],
          resources: [deadLetterQueue.queueArn],
        }),
        new iam.PolicyStatement({
          sid: 'RedriveToQueue',
          actions: ['sqs:GetQueueAttributes', 'sqs:SendMessage'],
          resources: [queue.queueArn],
        }),
      ],
    });
    const runTime = 'the control plane creates them at run time (one internal API key per customer key, one usage plan per Enterprise account), so their ids cannot be named in the template';
    const reasons: Record<string, string> = {
      '/apikeys/*': `Internal API Gateway keys: ${runTime}. API keys hold no customer secret; the grant is limited to the API keys path and the four verbs the control plane uses.`,
      '/usageplans/*': `Usage plans and their keys (/usageplans/{id}/keys/{keyId}): ${runTime}. The grant is limited to the usage plans path and the four verbs the control plane uses.`,
      '/tags/*': `Tag on create: CreateApiKey and CreateUsagePlan with tags are also authorized as apigateway:PUT on the tags resource of the new key or plan, whose id is only known at run time. Only PUT is granted on tags, nothing else.`,
    };
    for (const [path, reason] of Object.entries(reasons)) {
      Validations.of(policy).acknowledge({
        id: `AwsSolutions::AwsSolutions-IAM5[Resource::${apigatewayNagArn(stack, path)}]`,
        reason,
      });
    }
    return policy;
  }

  /** cdk-nag findings that are decisions of this design, each acknowledged on its own construct. */
  private acknowledgeNagFindings(manageCloudWatchRole: boolean): void {
    Validations.of(this.api).acknowledge({
      id: 'AwsSolutions::AwsSolutions-APIG2',
      reason:
        'Requests are validated by the handlers, after authentication and rate limiting, so that every rejection is an RFC 9457 problem naming the field and carries the rate-limit headers. API Gateway request validation would answer 400 before the limiter, without those headers and out of the documented order (auth, rate limit, media type, body).',
    });
    Validations.of(this.api).acknowledge({
      id: 'AwsSolutions::AwsSolutions-COG4',
      reason:
        'Clients authenticate with API keys (Authorization: Bearer <key>), not Cognito user pool tokens: every method uses our Lambda REQUEST authorizer, which looks up the SHA-256 of the key.',
    });
    if (manageCloudWatchRole) {
      const role = this.api.node.tryFindChild('CloudWatchRole');
      if (role) {
        Validations.of(role).acknowledge({
          id: 'AwsSolutions::AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
          reason:
            'The account-level role API Gateway uses to write execution and access logs of every API in the region; AWS maintains this service-role policy for exactly that purpose, and the log groups are created by the service with API-dependent names.',
        });
      }
    }
  }
}

/**
 * `apigatewayArn(stack, path)` as cdk-nag writes it in a finding id (IAM5 `Resource::`), with the
 * unresolved pseudo parameters as `<AWS::Name>`.
 */
function apigatewayNagArn(stack: Stack, path: string): string {
  const pseudo = (value: string, name: string) => (Token.isUnresolved(value) ? `<AWS::${name}>` : value);
  return `arn:${pseudo(stack.partition, 'Partition')}:apigateway:${pseudo(stack.region, 'Region')}::${path}`;
}
