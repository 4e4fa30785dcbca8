import { Template } from 'aws-cdk-lib/assertions';
import * as cognito from 'aws-cdk-lib/aws-cognito';
import { describe, expect, it } from 'vitest';
import { createSignIn, DASHBOARD_SCOPES } from '../../../../lib/constructs/dashboard/sign-in.js';
import { bareStack, logicalIdOf } from '../../support/bare-stack.js';

describe('createSignIn (in a bare stack)', () => {
  const { stack } = bareStack();
  const userPool = new cognito.UserPool(stack, 'Owners');
  const signIn = createSignIn(stack, { userPool, dashboardRoot: 'https://d111.cloudfront.net/' });
  const template = Template.fromStack(stack);
  const client = template.toJSON().Resources[logicalIdOf(stack, signIn.userPoolClient)].Properties;

  it('creates the app client and its managed login branding with the ids AppClient and ManagedLoginBranding', () => {
    expect([signIn.userPoolClient.node.id, signIn.managedLoginBranding.node.id]).toEqual(['AppClient', 'ManagedLoginBranding']);
    template.resourceCountIs('AWS::Cognito::UserPoolClient', 1);
    template.resourceCountIs('AWS::Cognito::ManagedLoginBranding', 1);
  });

  it('is a public client: authorization code with PKCE, no secret, callback and logout at the dashboard root', () => {
    expect(client.GenerateSecret).toBe(false);
    expect(client.AllowedOAuthFlows).toEqual(['code']);
    expect(client.AllowedOAuthScopes).toEqual([...DASHBOARD_SCOPES]);
    expect(client.CallbackURLs).toEqual(['https://d111.cloudfront.net/']);
    expect(client.LogoutURLs).toEqual(['https://d111.cloudfront.net/']);
    expect(client.PreventUserExistenceErrors).toBe('ENABLED');
  });

  it('lets ID and access tokens last one hour', () => {
    expect(client.IdTokenValidity).toBe(60);
    expect(client.AccessTokenValidity).toBe(60);
    expect(client.TokenValidityUnits).toEqual(expect.objectContaining({ IdToken: 'minutes', AccessToken: 'minutes' }));
  });
});
