import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type PlatformApp } from '../../../../lib/app.js';
import { DashboardData, defaultDomainPrefix } from '../../../../lib/constructs/dashboard/dashboard-data.js';
import { OWNERS_TABLE_KEYS } from '../../../../contracts/control-api.js';
import { DASHBOARD_DATA_OUTPUTS } from '../../../../lib/stacks/dashboard-stack.js';
import { cdkJsonContext, SKIP_BUNDLING } from '../../support/cdk-app.js';
import { dashboardStacksOfTheApp, type Json, only } from './dashboard.fixture.js';

// The dashboard stacks of the app: what goes in DashboardData. The Dashboard stack's control API,
// hosting and sign-in are in dashboard.test.ts, its control function in control-function.test.ts.

describe('the dashboard stacks (DashboardData, Dashboard) of the app', () => {
  let platform: PlatformApp;
  let stack: Stack;
  let dataStack: Stack;
  let template: Template;
  let dataTemplate: Template;

  beforeAll(() => {
    ({ platform, stack, dataStack, template, dataTemplate } = dashboardStacksOfTheApp());
  });

  it('puts the stateful resources in DashboardData and the rest in Dashboard, which depends on the other stacks', () => {
    expect(Object.keys(dataTemplate.findResources('AWS::Cognito::UserPool'))).toHaveLength(1);
    dataTemplate.resourceCountIs('AWS::Cognito::UserPoolDomain', 1);
    dataTemplate.resourceCountIs('AWS::DynamoDB::Table', 1);
    template.resourceCountIs('AWS::Cognito::UserPool', 0);
    template.resourceCountIs('AWS::DynamoDB::Table', 0);
    template.resourceCountIs('AWS::ApiGateway::RestApi', 1);
    template.resourceCountIs('AWS::CloudFront::Distribution', 1);
    const others = [platform.dataStack, platform.apiStack, platform.domainsDataStack, platform.domainsStack, dataStack];
    for (const other of others) {
      expect(stack.dependencies, other.stackName).toContain(other);
    }
    expect(dataStack.dependencies).toEqual([]);
  });

  describe('DashboardData', () => {
    it('has a user pool with self sign-up by email, verified emails, strong passwords and optional TOTP, retained', () => {
      const pools = dataTemplate.findResources('AWS::Cognito::UserPool');
      const pool = only(Object.values(pools) as Json[]);
      expect(pool.DeletionPolicy).toBe('Retain');
      expect(pool.UpdateReplacePolicy).toBe('Retain');
      expect(pool.Properties).toMatchObject({
        AdminCreateUserConfig: { AllowAdminCreateUserOnly: false },
        UsernameAttributes: ['email'],
        AutoVerifiedAttributes: ['email'],
        UsernameConfiguration: { CaseSensitive: false },
        UserAttributeUpdateSettings: { AttributesRequireVerificationBeforeUpdate: ['email'] },
        MfaConfiguration: 'OPTIONAL',
        EnabledMfas: ['SOFTWARE_TOKEN_MFA'],
        DeletionProtection: 'ACTIVE',
        UserPoolTier: 'ESSENTIALS',
        AccountRecoverySetting: { RecoveryMechanisms: [{ Name: 'verified_email', Priority: 1 }] },
        Policies: {
          PasswordPolicy: {
            MinimumLength: 12,
            RequireLowercase: true,
            RequireUppercase: true,
            RequireNumbers: true,
            RequireSymbols: true,
            TemporaryPasswordValidityDays: 3,
          },
        },
      });
      expect(pool.Properties.Schema).toContainEqual(expect.objectContaining({ Name: 'email', Required: true, Mutable: true }));
    });

    it('hosts the newer managed login on a prefix domain unique per stack and account', () => {
      dataTemplate.hasResourceProperties('AWS::Cognito::UserPoolDomain', {
        ManagedLoginVersion: 2,
        Domain: { 'Fn::Join': ['-', ['messagesplatform-dashboarddata', { Ref: 'AWS::AccountId' }]] },
      });
    });

    it('has the Owners table keyed by ownerId, on demand, with PITR and KMS, retained with deletion protection', () => {
      const table = only(Object.values(dataTemplate.findResources('AWS::DynamoDB::Table')) as Json[]);
      expect(table.DeletionPolicy).toBe('Retain');
      expect(table.Properties).toEqual({
        KeySchema: [{ AttributeName: OWNERS_TABLE_KEYS.partitionKey, KeyType: 'HASH' }],
        AttributeDefinitions: [{ AttributeName: OWNERS_TABLE_KEYS.partitionKey, AttributeType: 'S' }],
        BillingMode: 'PAY_PER_REQUEST',
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        SSESpecification: { SSEEnabled: true },
        DeletionProtectionEnabled: true,
        // The environment's tags (lib/app.ts tags every taggable resource).
        Tags: [
          { Key: 'Application', Value: 'MessagesPlatform' },
          { Key: 'Environment', Value: 'MessagesPlatform' },
        ],
      });
    });

    it('takes the domain prefix from the dashboardDomainPrefix context', () => {
      const { dashboardDataStack } = buildApp({
        context: { ...cdkJsonContext(), ...SKIP_BUNDLING, dashboardDomainPrefix: 'owners-login' },
        nag: false,
      });
      Template.fromStack(dashboardDataStack).hasResourceProperties('AWS::Cognito::UserPoolDomain', { Domain: 'owners-login' });
    });

    it('outputs the Owners table name', () => {
      expect(Object.keys(dataTemplate.toJSON().Outputs).filter((o) => !o.startsWith('PublishOutput'))).toEqual([
        DASHBOARD_DATA_OUTPUTS.ownersTableName,
      ]);
    });

    it('refuses a domain prefix Cognito would refuse, and derives a valid one from any stack name', () => {
      const app = new App();
      expect(() => new DashboardData(new Stack(app, 'A'), 'D', { domainPrefix: 'my-aws-dashboard' })).toThrow(/domainPrefix/);
      expect(() => new DashboardData(new Stack(app, 'B'), 'D', { domainPrefix: 'Upper' })).toThrow(/domainPrefix/);
      expect(() => new DashboardData(new Stack(app, 'C'), 'D', { domainPrefix: 'owners-login' })).not.toThrow();
      const probe = new Stack(app, 'Probe');
      const inStackOf = (prefix: string) => probe.resolve(prefix);
      expect(inStackOf(defaultDomainPrefix('AmazonShop-AWS_Cognito-DashboardData'))).toEqual({
        'Fn::Join': ['-', ['shop-dashboarddata', { Ref: 'AWS::AccountId' }]],
      });
      expect(inStackOf(defaultDomainPrefix('Cognito'))).toEqual({ 'Fn::Join': ['-', ['dashboard', { Ref: 'AWS::AccountId' }]] });
    });
  });
});
