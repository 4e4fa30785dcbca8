import { Template } from 'aws-cdk-lib/assertions';
import * as s3deploy from 'aws-cdk-lib/aws-s3-deployment';
import { describe, expect, it } from 'vitest';
import { createHosting, DASHBOARD_CACHE_CONTROL, deployDashboardApp } from '../../../../lib/constructs/dashboard/hosting.js';
import { bareStack, logicalIdOf } from '../../support/bare-stack.js';

describe('createHosting and deployDashboardApp (in a bare stack)', () => {
  const { stack } = bareStack();
  const hosting = createHosting(stack, {
    controlApiOrigin: 'https://abc.execute-api.eu-west-1.amazonaws.com',
    cognitoDomainUrl: 'https://owners.auth.eu-west-1.amazoncognito.com',
    siteUploadOrigin: 'https://sites.s3.eu-west-1.amazonaws.com',
  });
  const app = deployDashboardApp(stack, {
    hosting,
    appSource: s3deploy.Source.data('index.html', '<!doctype html>'),
    appConfig: { apiBaseUrl: 'https://abc.execute-api.eu-west-1.amazonaws.com/v1' },
  });
  const template = Template.fromStack(stack);
  const resources = template.toJSON().Resources as Record<string, { Properties: Record<string, unknown> }>;

  it('creates the log bucket, site bucket, headers policy and distribution with their ids in the given scope', () => {
    const parts = [hosting.logBucket, hosting.siteBucket, hosting.responseHeadersPolicy, hosting.distribution];
    expect(parts.map((c) => c.node.id)).toEqual([
      'AccessLogs',
      'Site',
      'SecurityHeaders',
      'Distribution',
    ]);
    template.resourceCountIs('AWS::S3::Bucket', 2);
    template.resourceCountIs('AWS::CloudFront::Distribution', 1);
    template.resourceCountIs('AWS::CloudFront::OriginAccessControl', 1);
  });

  it('keeps the site bucket private: all public access blocked, SSE-S3, owner-enforced, logging to the log bucket', () => {
    const site = resources[logicalIdOf(stack, hosting.siteBucket)]?.Properties;
    expect(site?.PublicAccessBlockConfiguration).toEqual({
      BlockPublicAcls: true,
      BlockPublicPolicy: true,
      IgnorePublicAcls: true,
      RestrictPublicBuckets: true,
    });
    expect(site?.OwnershipControls).toEqual({ Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] });
    expect(site?.LoggingConfiguration).toEqual({
      DestinationBucketName: { Ref: logicalIdOf(stack, hosting.logBucket) },
      LogFilePrefix: 'site/',
    });
  });

  it('lets the app connect only to itself, the control API, the site bucket (deploy uploads) and the Cognito domain (CSP connect-src)', () => {
    type Csp = { ContentSecurityPolicy: { ContentSecurityPolicy: string } };
    const policy = resources[logicalIdOf(stack, hosting.responseHeadersPolicy)]?.Properties as {
      ResponseHeadersPolicyConfig: { SecurityHeadersConfig: Csp };
    };
    const csp = policy.ResponseHeadersPolicyConfig.SecurityHeadersConfig.ContentSecurityPolicy.ContentSecurityPolicy;
    expect(csp).toContain(
      'connect-src \'self\' https://abc.execute-api.eu-west-1.amazonaws.com https://sites.s3.eu-west-1.amazonaws.com https://owners.auth.eu-west-1.amazoncognito.com;',
    );
    expect(csp).toContain('frame-ancestors \'none\';');
  });

  it('deploys the app with the dashboard cache control, pruning, and invalidating the distribution', () => {
    expect([app.deploymentRole.node.id, app.deployment.node.id]).toEqual(['DeploymentRole', 'Deployment']);
    const deployment = Object.values(template.findResources('Custom::CDKBucketDeployment'))[0]?.Properties;
    expect(deployment?.SystemMetadata).toEqual({ 'cache-control': DASHBOARD_CACHE_CONTROL });
    expect(deployment?.Prune).toBe(true);
    expect(deployment?.DistributionId).toEqual({ Ref: logicalIdOf(stack, hosting.distribution) });
    expect(deployment?.DistributionPaths).toEqual(['/*']);
  });
});
