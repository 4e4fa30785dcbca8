import { Aws, Duration, Fn, RemovalPolicy, Stack, Token, Validations } from 'aws-cdk-lib';
import * as cognito from 'aws-cdk-lib/aws-cognito';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { OWNERS_TABLE_KEYS } from '../../../contracts/control-api.js';

/** What the stateless dashboard (control API, hosting, app client) needs from the stateful part. */
export interface DashboardDataResources {
  /** The owners' user pool: self sign-up with email, the ID tokens the control API's authorizer accepts. */
  readonly userPool: cognito.IUserPool;
  /** The Cognito prefix domain hosting managed login (`https://<prefix>.auth.<region>.amazoncognito.com`). */
  readonly userPoolDomain: cognito.UserPoolDomain;
  /** Cognito user (sub) → account (OWNERS_TABLE_KEYS). */
  readonly ownersTable: dynamodb.ITable;
}

export interface DashboardDataProps {
  /**
   * The Cognito domain prefix of managed login (`<prefix>.auth.<region>.amazoncognito.com`). It
   * must be unique in the region across all AWS accounts, use lower-case letters, digits and
   * hyphens, and not contain `aws`, `amazon` or `cognito`.
   * @default - `<stack name, lower case, without those words>-<account id>`, e.g. `messagesplatform-dashboarddata-123456789012`
   */
  readonly domainPrefix?: string;
  /**
   * Removal policy of the user pool and the owners table. Retained resources also get deletion
   * protection.
   * @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;
  /**
   * How Cognito sends the verification and password-reset emails.
   * @default - Cognito's own sender (no-reply@verificationemail.com, a low daily quota: fine to start, use SES for production volume)
   */
  readonly email?: cognito.UserPoolEmail;
}

/** Words Cognito refuses in a domain prefix. */
const RESERVED_PREFIX_WORDS = ['aws', 'amazon', 'cognito'] as const;

/**
 * The default domain prefix: the stack name made DNS-safe without the words Cognito refuses, then
 * the account id (unique per account and stack, as Cognito requires per region).
 */
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
 * The stateful resources of the owners' dashboard: the Cognito user pool owners sign up and sign in
 * with (email as the user name, verified by email, strong passwords, optional TOTP MFA, retained
 * with deletion protection), its prefix domain with the newer managed login pages, and the Owners
 * table (Cognito `sub` → account; on demand, point-in-time recovery, AWS-managed KMS, retained).
 *
 * The app client and its managed login branding are in the stateless stack: the client's callback
 * URL is the dashboard distribution's domain, and the branding style belongs to a client.
 */
export class DashboardData extends Construct implements DashboardDataResources {
  readonly userPool: cognito.UserPool;
  readonly userPoolDomain: cognito.UserPoolDomain;
  readonly ownersTable: dynamodb.Table;

  constructor(scope: Construct, id: string, props: DashboardDataProps = {}) {
    super(scope, id);
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;
    const retained = removalPolicy === RemovalPolicy.RETAIN;

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
      email: props.email,
      deletionProtection: retained,
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

    this.ownersTable = new dynamodb.Table(this, 'Owners', {
      partitionKey: { name: OWNERS_TABLE_KEYS.partitionKey, type: dynamodb.AttributeType.STRING },
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      encryption: dynamodb.TableEncryption.AWS_MANAGED,
      removalPolicy,
      deletionProtection: retained,
    });

    this.acknowledgeNagFindings();
  }

  private acknowledgeNagFindings(): void {
    Validations.of(this.userPool).acknowledge({
      id: 'AwsSolutions::AwsSolutions-COG2',
      reason:
        'MFA is optional, not required: owners sign up themselves and can turn on TOTP (authenticator app) in managed login. Requiring MFA at sign-up would put an authenticator app between every new owner and their first API key; SMS is off (cost, SIM swapping). Strong passwords (12+ characters, four classes) and email verification apply to everyone.',
    });
    Validations.of(this.userPool).acknowledge({
      id: 'AwsSolutions::AwsSolutions-COG8',
      reason:
        'Threat protection (adaptive authentication, compromised-credential checks) needs the Plus feature plan, priced per monthly active user on top of Essentials. The dashboard holds no payment data and its API keys are revocable; the pool is on Essentials (managed login) and can be moved to Plus with one property when the owner base warrants it.',
    });
  }
}
