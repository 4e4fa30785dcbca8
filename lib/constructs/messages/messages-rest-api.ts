import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as apigw from 'aws-cdk-lib/aws-apigateway';
import * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { GATEWAY_RESPONSES } from '../../../contracts/gateway-responses.js';
import type { PlatformConfig } from '../../config/index.js';
import { gatewayResponseHeaders, gatewayResponseTemplate } from '../shared/gateway-response-mapping.js';
import { jsonAccessLog } from '../shared/access-log.js';
import { acknowledgeNag } from '../shared/nag.js';
import type { PlatformFunction } from '../shared/platform-function.js';
import { ApiFirewall } from './api-firewall.js';
import type { MessagesFunctions } from './messages-functions.js';
import { addTraceSampling } from './trace-sampling.js';

/** The deployed stage, also the version in the URL. */
export const STAGE_NAME = 'v1';

export interface MessagesRestApiProps {
  readonly config: PlatformConfig;
  readonly functions: MessagesFunctions;
  /** Execution logging level of every method (stage `*\/*`). @default apigw.MethodLoggingLevel.ERROR */
  readonly executionLogLevel?: apigw.MethodLoggingLevel;
  /**
   * Whether this API sets the account-wide (per region) API Gateway CloudWatch Logs role, which
   * execution logging needs (retained on deletion: other APIs may rely on it). False when the
   * account has one managed elsewhere.
   * @default true
   */
  readonly manageCloudWatchRole?: boolean;
  /** @default logs.RetentionDays.THREE_MONTHS */
  readonly accessLogRetention?: logs.RetentionDays;
}

/** The Messages API stage's access log: the authorizer's outcome and the metered usage key. */
function accessLogFormat(): apigw.AccessLogFormat {
  const F = apigw.AccessLogField;
  return jsonAccessLog(
    {
      authorizerStatus: F.contextAuthorizerStatus(),
      authorizerLatency: F.contextAuthorizerLatency(),
      authorizerError: F.contextAuthorizerError(),
      principalId: F.contextAuthorizerPrincipalId(),
      // The id of the internal usage-plan key (never a customer secret), i.e. the plan that was metered.
      usageKeyId: F.contextIdentityApiKeyId(),
    },
    true,
  );
}

/** The REST API: our REQUEST authorizer before every handler, the web ACL, RFC 9457 gateway responses. */
export function createMessagesRestApi(scope: Construct, props: MessagesRestApiProps) {
  const { config, functions } = props;
  const stack = Stack.of(scope);
  const accessLogs = new logs.LogGroup(scope, 'AccessLogs', {
    retention: props.accessLogRetention ?? logs.RetentionDays.THREE_MONTHS,
    removalPolicy: RemovalPolicy.RETAIN,
  });

  // Every request, also one without an Authorization header, must reach our handlers, so that even a
  // 401 carries our limiter's headers: hence no identity sources (API Gateway would answer 401
  // itself) and no result cache (it needs them). The authorizer caches key lookups in memory and
  // always returns Allow (anonymous callers too); the handlers answer 401.
  const authorizer = new apigw.RequestAuthorizer(scope, 'RequestAuthorizer', {
    handler: functions.authorizer.function,
    identitySources: [],
    resultsCacheTtl: Duration.seconds(0),
  });
  // CDK renders the empty identity source list as "", which API Gateway may reject; omit it.
  (authorizer.node.defaultChild as apigw.CfnAuthorizer).addPropertyDeletionOverride('IdentitySource');

  const manageCloudWatchRole = props.manageCloudWatchRole ?? true;
  const api = new apigw.RestApi(scope, 'RestApi', {
    restApiName: `${stack.stackName}-messages`,
    description: 'Messages API (authorizer-sourced API keys; usage plans are the backstop of the exact limiter)',
    endpointConfiguration: { types: [apigw.EndpointType.REGIONAL] },
    apiKeySourceType: apigw.ApiKeySourceType.AUTHORIZER,
    cloudWatchRole: manageCloudWatchRole,
    cloudWatchRoleRemovalPolicy: manageCloudWatchRole ? RemovalPolicy.RETAIN : undefined,
    deployOptions: {
      stageName: STAGE_NAME,
      accessLogDestination: new apigw.LogGroupLogDestination(accessLogs),
      accessLogFormat: accessLogFormat(),
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
      authorizer,
      authorizationType: apigw.AuthorizationType.CUSTOM,
      // The authorizer returns the usage identifier: this makes the plan's backstop apply.
      apiKeyRequired: true,
    },
  });
  const stage = api.deploymentStage;
  const firewall = new ApiFirewall(scope, 'Firewall', { config, stage });
  addTraceSampling(scope, stage);

  addRoutes(api, functions);
  for (const def of GATEWAY_RESPONSES) {
    api.addGatewayResponse(`Response${def.type}`, {
      type: apigw.ResponseType.of(def.type),
      statusCode: String(def.statusCode),
      responseHeaders: gatewayResponseHeaders(def),
      templates: { 'application/json': gatewayResponseTemplate(def) },
    });
  }
  acknowledgeNagFindings(api);
  return { api, stage, authorizer, firewall };
}

/** Specific methods win; ANY catches every method not declared on the same resource. */
function addRoutes(api: apigw.RestApi, functions: MessagesFunctions): void {
  const integration = (fn: PlatformFunction) =>
    new apigw.LambdaIntegration(fn.function, { proxy: true, allowTestInvoke: false });
  const fallback = integration(functions.fallback);
  api.root.addMethod('ANY', fallback);
  api.root.addResource('{proxy+}').addMethod('ANY', fallback);
  const messages = api.root.addResource('messages');
  messages.addMethod('POST', integration(functions.sendMessage));
  // GET /messages (the message log), on the read function (it tells the routes apart by resource).
  messages.addMethod('GET', integration(functions.getMessage));
  messages.addMethod('ANY', fallback);
  // POST /messages/batch, on the send function (it tells the routes apart by resource); a static
  // resource, so it wins over {id}. sqs:SendMessage also grants SendMessageBatch.
  const batch = messages.addResource('batch');
  batch.addMethod('POST', integration(functions.sendMessage));
  batch.addMethod('ANY', fallback);
  const message = messages.addResource('{id}');
  message.addMethod('GET', integration(functions.getMessage));
  message.addMethod('ANY', fallback);
  // Deeper paths under /messages/{id} do not fall back to the root proxy: catch them here.
  message.addResource('{proxy+}').addMethod('ANY', fallback);
}

/** cdk-nag findings of the REST API that are decisions of this design, each acknowledged on its own construct. */
function acknowledgeNagFindings(api: apigw.RestApi): void {
  acknowledgeNag(api, {
    APIG2:
      'Requests are validated by the handlers, after authentication and rate limiting, so that every rejection is an RFC 9457 problem naming the field and carries the rate-limit headers. API Gateway request validation would answer 400 before the limiter, without those headers and out of the documented order (auth, rate limit, media type, body).',
    COG4:
      'Clients authenticate with API keys (Authorization: Bearer <key>), not Cognito user pool tokens: every method uses our Lambda REQUEST authorizer, which looks up the SHA-256 of the key.',
  });
  // Absent when the API does not manage the account's CloudWatch role (manageCloudWatchRole false).
  const role = api.node.tryFindChild('CloudWatchRole');
  if (role) {
    acknowledgeNag(role, {
      'IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]':
        'The account-level role API Gateway uses to write execution and access logs of every API in the region; AWS maintains this service-role policy for exactly that purpose, and the log groups are created by the service with API-dependent names.',
    });
  }
}
