import * as apigw from 'aws-cdk-lib/aws-apigateway';

const F = apigw.AccessLogField;

/** A REST stage's access log line, one JSON object per request; `caller` names who called (never a secret). */
export function jsonAccessLog(caller: Record<string, string>, withProtocol = false): apigw.AccessLogFormat {
  return apigw.AccessLogFormat.custom(
    JSON.stringify({
      requestId: F.contextRequestId(),
      extendedRequestId: F.contextExtendedRequestId(),
      ip: F.contextIdentitySourceIp(),
      userAgent: F.contextIdentityUserAgent(),
      requestTime: F.contextRequestTime(),
      httpMethod: F.contextHttpMethod(),
      resourcePath: F.contextResourcePath(),
      path: F.contextPath(),
      ...(withProtocol ? { protocol: F.contextProtocol() } : {}),
      status: F.contextStatus(),
      responseLength: F.contextResponseLength(),
      responseLatency: F.contextResponseLatency(),
      integrationStatus: F.contextIntegrationStatus(),
      integrationLatency: F.contextIntegrationLatency(),
      ...caller,
      errorMessage: F.contextErrorMessage(),
      errorResponseType: F.contextErrorResponseType(),
      xrayTraceId: F.contextXrayTraceId(),
    }),
  );
}
