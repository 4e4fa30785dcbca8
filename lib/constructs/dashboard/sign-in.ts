import { Duration, Stack } from 'aws-cdk-lib';
import * as cognito from 'aws-cdk-lib/aws-cognito';
import type { Construct } from 'constructs';

/** The OAuth scopes of the dashboard's app client (the SPA asks for exactly these). */
export const DASHBOARD_SCOPES = ['openid', 'email', 'profile'] as const;

export interface SignInProps {
  readonly userPool: cognito.IUserPool;
  /** `https://<distribution domain>/`: the callback and logout URL. */
  readonly dashboardRoot: string;
}

/** The user pool's app client (public, code with PKCE) and its managed login branding (Cognito's look). */
export function createSignIn(scope: Construct, props: SignInProps) {
  const stack = Stack.of(scope);
  const userPoolClient = new cognito.UserPoolClient(scope, 'AppClient', {
    userPool: props.userPool,
    userPoolClientName: `${stack.stackName}-dashboard`,
    // A browser app keeps no secret: authorization code with PKCE.
    generateSecret: false,
    authFlows: { userSrp: true },
    oAuth: {
      flows: { authorizationCodeGrant: true },
      scopes: [cognito.OAuthScope.OPENID, cognito.OAuthScope.EMAIL, cognito.OAuthScope.PROFILE],
      callbackUrls: [props.dashboardRoot],
      logoutUrls: [props.dashboardRoot],
    },
    supportedIdentityProviders: [cognito.UserPoolClientIdentityProvider.COGNITO],
    preventUserExistenceErrors: true,
    // How long an owner's ID token (and the dashboard session) lasts.
    idTokenValidity: Duration.hours(1),
    accessTokenValidity: Duration.hours(1),
    // The app keeps no refresh token (it signs in again when the ID token expires).
    refreshTokenValidity: Duration.days(1),
    enableTokenRevocation: true,
  });
  const managedLoginBranding = new cognito.CfnManagedLoginBranding(scope, 'ManagedLoginBranding', {
    userPoolId: props.userPool.userPoolId,
    clientId: userPoolClient.userPoolClientId,
    useCognitoProvidedValues: true,
  });
  return { userPoolClient, managedLoginBranding };
}
