import { Duration, Stack } from 'aws-cdk-lib';
import * as cognito from 'aws-cdk-lib/aws-cognito';
import type { Construct } from 'constructs';

/** The OAuth scopes of the dashboard's app client (the SPA asks for exactly these). */
export const DASHBOARD_SCOPES = ['openid', 'email', 'profile'] as const;

export interface SignInProps {
  /** The owners' user pool (stateful stack). */
  readonly userPool: cognito.IUserPool;
  /** `https://<distribution domain>/`: the callback and logout URL. */
  readonly dashboardRoot: string;
  /**
   * How long an owner's ID token (and the dashboard session) lasts.
   * @default Duration.hours(1)
   */
  readonly idTokenValidity?: Duration;
}

export interface SignIn {
  readonly userPoolClient: cognito.UserPoolClient;
  readonly managedLoginBranding: cognito.CfnManagedLoginBranding;
}

/**
 * Sign-in: the app client of the user pool (public, authorization code with PKCE, callback and
 * logout URL = the distribution's root) and its managed login branding (Cognito's defaults).
 * Created in `scope` itself (ids AppClient, ManagedLoginBranding).
 */
export function createSignIn(scope: Construct, props: SignInProps): SignIn {
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
    idTokenValidity: props.idTokenValidity ?? Duration.hours(1),
    accessTokenValidity: props.idTokenValidity ?? Duration.hours(1),
    // The app keeps no refresh token (it signs in again when the ID token expires).
    refreshTokenValidity: Duration.days(1),
    enableTokenRevocation: true,
  });
  // Managed login pages need a branding style per client; Cognito's own look.
  const managedLoginBranding = new cognito.CfnManagedLoginBranding(scope, 'ManagedLoginBranding', {
    userPoolId: props.userPool.userPoolId,
    clientId: userPoolClient.userPoolClientId,
    useCognitoProvidedValues: true,
  });
  return { userPoolClient, managedLoginBranding };
}
