import { Aws, Duration, Fn, RemovalPolicy, Stack, Token } from 'aws-cdk-lib';
import * as cognito from 'aws-cdk-lib/aws-cognito';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { OWNERS_TABLE_KEYS } from '../../../contracts/control-api.js';
import { platformTable } from '../messages/messages-data.js';
import { acknowledgeNag } from '../shared/nag.js';

export interface DashboardDataProps {
  /**
   * The Cognito domain prefix of managed login: unique in the region across all accounts, lower
   * case, without `aws`, `amazon` or `cognito`. @default - defaultDomainPrefix(stack name)
   */
  readonly domainPrefix?: string;
}

/** Words Cognito refuses in a domain prefix. */
const RESERVED_PREFIX_WORDS = ['aws', 'amazon', 'cognito'] as const;

/** The stack name made DNS-safe without the words Cognito refuses, then the account id. */
export function defaultDomainPrefix(stackName: string): string {
  let slug = stackName.toLowerCase();
  for (const word of RESERVED_PREFIX_WORDS) slug = slug.replaceAll(word, '-');
  slug = slug
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/-+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 50)
    .replace(/-$/, '');
  // 50 + "-" + 12 digits = 63 characters at most, Cognito's limit.
  return Fn.join('-', [slug || 'dashboard', Aws.ACCOUNT_ID]);
}

/**
 * The owners' user pool, its managed-login domain and the Owners table, all retained. The app
 * client is in the stateless stack: its callback URL is the distribution's domain.
 */
export class DashboardData extends Construct {
  readonly userPool: cognito.UserPool;
  /** The Cognito prefix domain hosting managed login. */
  readonly userPoolDomain: cognito.UserPoolDomain;
  /** Cognito user (sub) → account. */
  readonly ownersTable: dynamodb.Table;

  constructor(scope: Construct, id: string, props: DashboardDataProps = {}) {
    super(scope, id);
    const removalPolicy = RemovalPolicy.RETAIN;

    this.userPool = new cognito.UserPool(this, 'UserPool', {
      userPoolName: `${Stack.of(this).stackName}-owners`,
      // Managed login (the newer pages with the branding designer) needs Essentials or Plus.
      featurePlan: cognito.FeaturePlan.ESSENTIALS,
      selfSignUpEnabled: true,
      signInAliases: { email: true },
      signInCaseSensitive: false,
      autoVerify: { email: true },
      // A changed email stays the sign-in name until the new one is verified.
      keepOriginal: { email: true },
      standardAttributes: { email: { required: true, mutable: true } },
      userVerification: {
        emailSubject: 'Verify your email for the platform dashboard',
        emailBody: 'Your verification code is {####}.',
        emailStyle: cognito.VerificationEmailStyle.CODE,
      },
      passwordPolicy: {
        minLength: 12,
        requireLowercase: true,
        requireUppercase: true,
        requireDigits: true,
        requireSymbols: true,
        tempPasswordValidity: Duration.days(3),
      },
      mfa: cognito.Mfa.OPTIONAL,
      mfaSecondFactor: { otp: true, sms: false },
      accountRecovery: cognito.AccountRecovery.EMAIL_ONLY,
      deletionProtection: true,
      removalPolicy,
    });

    const domainPrefix = props.domainPrefix ?? defaultDomainPrefix(Stack.of(this).stackName);
    if (!Token.isUnresolved(domainPrefix)) {
      const reserved = RESERVED_PREFIX_WORDS.find((w) => domainPrefix.includes(w));
      if (reserved || !/^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/.test(domainPrefix)) {
        throw new Error(
          `DashboardData ${this.node.path}: domainPrefix ${JSON.stringify(domainPrefix)} must be 1-63 lower-case letters, digits and hyphens, and not contain aws, amazon or cognito`,
        );
      }
    }
    this.userPoolDomain = this.userPool.addDomain('Domain', {
      cognitoDomain: { domainPrefix },
      managedLoginVersion: cognito.ManagedLoginVersion.NEWER_MANAGED_LOGIN,
    });

    this.ownersTable = platformTable(this, 'Owners', { partitionKey: OWNERS_TABLE_KEYS.partitionKey, removalPolicy });

    acknowledgeNag(this.userPool, {
      COG2: 'MFA is optional, not required: owners sign up themselves and can turn on TOTP (authenticator app) in managed login. Requiring MFA at sign-up would put an authenticator app between every new owner and their first API key; SMS is off (cost, SIM swapping). Strong passwords (12+ characters, four classes) and email verification apply to everyone.',
      COG8: 'Threat protection (adaptive authentication, compromised-credential checks) needs the Plus feature plan, priced per monthly active user on top of Essentials. The dashboard holds no payment data and its API keys are revocable; the pool is on Essentials (managed login) and can be moved to Plus with one property when the owner base warrants it.',
    });
  }
}
