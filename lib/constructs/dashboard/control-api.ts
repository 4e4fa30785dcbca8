import { Duration, Fn, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as apigw from 'aws-cdk-lib/aws-apigateway';
import type * as cognito from 'aws-cdk-lib/aws-cognito';
import * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { CONTROL_GATEWAY_RESPONSES } from '../../../contracts/control-gateway-responses.js';
import { jsonAccessLog } from '../shared/access-log.js';
import { gatewayResponseHeaders, gatewayResponseTemplate } from '../shared/gateway-response-mapping.js';
import { acknowledgeNag } from '../shared/nag.js';
import type { PlatformFunction } from '../shared/platform-function.js';

/** The control API's stage: the version in its URL. */
export const CONTROL_STAGE_NAME = 'v1';

/** The headers the dashboard sends to the control API (preflight Access-Control-Allow-Headers). */
export const CONTROL_CORS_HEADERS = ['Authorization', 'Content-Type', 'Accept'] as const;
/** The methods of the control API's routes (openapi/control-api.yaml). */
export const CONTROL_CORS_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/**
 * The control API's REST API, still without methods (CORS and the dashboard's CSP need each other's
 * origin): access logs, X-Ray, stage throttling. `url` is its base URL without a trailing slash,
 * `origin` what the dashboard's CSP lets it connect to.
 */
export function createControlRestApi(scope: Construct) {
  const stack = Stack.of(scope);
  const accessLogs = new logs.LogGroup(scope, 'ControlApiAccessLogs', {
    retention: logs.RetentionDays.THREE_MONTHS,
    removalPolicy: RemovalPolicy.RETAIN,
  });
  const api = new apigw.RestApi(scope, 'ControlApi', {
    restApiName: `${stack.stackName}-control`,
    description: 'Control API of the owners\' dashboard (Cognito ID tokens; keys, usage, projects, domains)',
    endpointConfiguration: { types: [apigw.EndpointType.REGIONAL] },
    // The account's API Gateway CloudWatch Logs role is the Messages API's (MessagesApi manageCloudWatchRole).
    cloudWatchRole: false,
    deployOptions: {
      stageName: CONTROL_STAGE_NAME,
      accessLogDestination: new apigw.LogGroupLogDestination(accessLogs),
      // The owner's Cognito sub (never the token).
      accessLogFormat: jsonAccessLog({ sub: apigw.AccessLogField.contextAuthorizerClaims('sub') }),
      tracingEnabled: true,
      loggingLevel: apigw.MethodLoggingLevel.ERROR,
      // Data trace would log whole requests, ID tokens included.
      dataTraceEnabled: false,
      metricsEnabled: false,
      // Requests per second of the stage, all callers together.
      throttlingRateLimit: 50,
      throttlingBurstLimit: 100,
    },
  });
  // The ControlApiUrl output replaces the RestApi's own Endpoint output (its URL ends with "/").
  api.node.tryRemoveChild('Endpoint');
  const parts = ['https://', api.restApiId, '.execute-api.', stack.region, '.', stack.urlSuffix];
  const url = Fn.join('', [...parts, '/', CONTROL_STAGE_NAME]);
  const origin = Fn.join('', parts);
  return { api, url, origin };
}

export interface ControlRoutesProps {
  readonly api: apigw.RestApi;
  readonly handler: PlatformFunction;
  /** Whose ID tokens the authorizer accepts. */
  readonly userPool: cognito.IUserPool;
  /** `https://<distribution domain>`: the only origin CORS allows. */
  readonly dashboardOrigin: string;
}

/**
 * Every method (root and `{proxy+}`, ANY) needs a Cognito ID token and goes to the one handler;
 * CORS for the dashboard's origin only (preflights without auth, gateway responses with the header).
 */
export function addControlRoutes(scope: Construct, props: ControlRoutesProps): apigw.CognitoUserPoolsAuthorizer {
  const { api, dashboardOrigin } = props;
  const authorizer = new apigw.CognitoUserPoolsAuthorizer(scope, 'CognitoAuthorizer', {
    // ID tokens in Authorization (no scopes on the methods): the handler reads the owner's sub and email claims.
    cognitoUserPools: [props.userPool],
    resultsCacheTtl: Duration.minutes(5),
  });
  const cors: apigw.CorsOptions = {
    allowOrigins: [dashboardOrigin],
    allowMethods: [...CONTROL_CORS_METHODS],
    allowHeaders: [...CONTROL_CORS_HEADERS],
    exposeHeaders: ['X-Request-Id', 'Allow', 'Retry-After'],
    maxAge: Duration.hours(1),
  };
  const integration = new apigw.LambdaIntegration(props.handler.function, { proxy: true, allowTestInvoke: false });
  const methodOptions = { authorizer, authorizationType: apigw.AuthorizationType.COGNITO };
  api.root.addCorsPreflight(cors);
  api.root.addMethod('ANY', integration, methodOptions);
  const proxy = api.root.addResource('{proxy+}');
  proxy.addCorsPreflight(cors);
  proxy.addMethod('ANY', integration, methodOptions);

  const allowOrigin = { 'Access-Control-Allow-Origin': dashboardOrigin, Vary: 'Origin' };
  for (const def of CONTROL_GATEWAY_RESPONSES) {
    const withCors = { ...def, headers: { ...def.headers, ...allowOrigin } };
    api.addGatewayResponse(`Response${def.type}`, {
      type: apigw.ResponseType.of(def.type),
      statusCode: String(def.statusCode),
      responseHeaders: gatewayResponseHeaders(withCors),
      templates: { 'application/json': gatewayResponseTemplate(def) },
    });
  }
  return authorizer;
}

/** cdk-nag findings of the control API that are decisions of this design. */
export function acknowledgeControlApiNagFindings(api: apigw.RestApi): void {
  acknowledgeNag(api, {
    APIG2: 'Every route is validated by the control-plane handler, which answers RFC 9457 problems naming the field (openapi/control-api.yaml); the API is one {proxy+} resource, so API Gateway request models would duplicate the handler\'s validation in a second, weaker place.',
  });
  acknowledgeNag(api.deploymentStage, {
    APIG3: 'No WAF web ACL: every method needs a Cognito ID token (checked by API Gateway before any code runs), the stage is throttled, and the handler scopes every request to the caller\'s own account. A web ACL can be associated per deployment without changing this stack.',
  });
}
