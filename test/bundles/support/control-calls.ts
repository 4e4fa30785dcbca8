import type { APIGatewayProxyResult } from 'aws-lambda';
import { DevSignIn } from '../../../local/dashboard.js';
import {
  assertResponseMatchesSpec,
  createResponseValidator,
  type ResponseValidator,
} from '../../support/openapi.js';
import { CONTROL_API_OPENAPI_PATH } from '../../support/openapi-document.js';
import { type Answer, answerOf, proxyEvent } from './events.js';
import type { BundleStage } from './stage.js';

let validator: ResponseValidator | undefined;

/** The Cognito ID-token claims API Gateway's authorizer passes on for an owner (a demo owner's sub is its local id). */
export function ownerClaims(email: string, sub: string = DevSignIn.ownerIdOf(email)): Record<string, string> {
  return { sub, email, email_verified: 'true', 'cognito:username': sub, token_use: 'id' };
}

/**
 * One request to the control function's bundle, as the dashboard API's `ANY /{proxy+}` integration
 * behind the Cognito authorizer delivers it; the answer is checked against openapi/control-api.yaml.
 */
export async function controlCall(
  stage: BundleStage,
  claims: Record<string, string>,
  method: string,
  path: string,
  body?: unknown,
): Promise<Answer> {
  const result = await stage.invoke<APIGatewayProxyResult>(
    'control',
    proxyEvent(
      {
        method,
        resource: '/{proxy+}',
        path,
        pathParameters: { proxy: path.slice(1) },
        headers: {
          Authorization: 'eyJraWQiOiJidW5kbGUtc3RhZ2UifQ.eyJzdWIiOiJidW5kbGUtc3RhZ2UifQ.signature',
          ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      },
      { claims },
    ),
  );
  const answer = answerOf(result);
  await stage.expectNoServerError('control', answer.status, answer.text);
  validator ??= createResponseValidator({ specPath: CONTROL_API_OPENAPI_PATH });
  const { status, headers } = answer;
  assertResponseMatchesSpec({ method, path, status, headers, body: answer.text === '' ? undefined : answer.body }, validator);
  return answer;
}
