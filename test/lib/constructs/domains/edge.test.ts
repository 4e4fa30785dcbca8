import { App, type CfnResource, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as route53 from 'aws-cdk-lib/aws-route53';
import { beforeAll, describe, expect, it } from 'vitest';
import { functionSource } from '../../../../edge/cloudfront-function.js';
import { loadConfig } from '../../../../lib/config/index.js';
import { platformHostOf } from '../../../../contracts/domains.js';
import { Edge, EdgeCertificate, SITE_ORIGIN_ID } from '../../../../lib/constructs/domains/edge.js';
import { ProjectsData } from '../../../../lib/constructs/domains/projects-data.js';
import { DomainsDataStack, EdgeCertificateStack, type EdgeZoneStack } from '../../../../lib/stacks/domains-stack.js';
import { cdkJsonContext, edgeStacks, SKIP_BUNDLING } from '../../support/cdk-app.js';

type Json = ReturnType<Template['toJSON']>;

const config = loadConfig();
const domain = config.platform.domain;

describe('Edge (in the DomainsData stack), the platform zone and the certificate (in the us-east-1 EdgeZone and EdgeCertificate stacks)', () => {
  let zoneStack: EdgeZoneStack;
  let certStack: EdgeCertificateStack;
  let dataStack: DomainsDataStack;
  let edge: Edge;
  let template: Template;
  let resources: Json;
  let certTemplate: Template;
  let zoneTemplate: Template;

  /** The logical id of an L2's default child, or of an L1 itself. */
  const idIn = (stack: Stack, construct: { node: { defaultChild?: unknown } }) =>
    stack.getLogicalId((construct.node.defaultChild ?? construct) as CfnResource);
  const idOf = (construct: { node: { defaultChild?: unknown } }) => idIn(dataStack, construct);
  const props = (construct: { node: { defaultChild?: unknown } }) => resources[idOf(construct)]?.Properties as Json;
  /** A cross-region reference to an output of the EdgeCertificate stack, followed to what it publishes. */
  const fromCertStack = (value: Json) => fromUsEast1(value, certStack, certTemplate);
  /** The same, to an output of the EdgeZone stack. */
  const fromZoneStack = (value: Json) => fromUsEast1(value, zoneStack, zoneTemplate);
  const fromUsEast1 = (value: Json, stack: Stack, stackTemplate: Template) => {
    const ref = value['Fn::GetStackOutput'] as { StackName: string; Region: string; OutputName: string };
    expect(ref.StackName).toBe(stack.stackName);
    expect(ref.Region).toBe('us-east-1');
    return stackTemplate.toJSON().Outputs[ref.OutputName].Value as Json;
  };

  beforeAll(() => {
    const app = new App({ context: { ...cdkJsonContext(), ...SKIP_BUNDLING } });
    ({ zoneStack, certStack } = edgeStacks(app, 'Test', config));
    dataStack = new DomainsDataStack(app, 'Test-DomainsData', {
      config,
      env: { region: config.platform.region },
      edgeZone: certStack.edgeZone,
    });
    edge = dataStack.edge;
    app.synth();
    template = Template.fromStack(dataStack);
    resources = template.toJSON().Resources;
    certTemplate = Template.fromStack(certStack);
    zoneTemplate = Template.fromStack(zoneStack);
  });

  describe('EdgeZone and EdgeCertificate', () => {
    it('puts the platform zone alone in its us-east-1 stack, retained (the registrar points at its name servers)', () => {
      expect(zoneStack.region).toBe('us-east-1');
      zoneTemplate.hasResource('AWS::Route53::HostedZone', {
        Properties: { Name: `${domain}.` },
        DeletionPolicy: 'Retain',
        UpdateReplacePolicy: 'Retain',
      });
      expect(Object.keys(zoneTemplate.toJSON().Resources)).toHaveLength(1);
      certTemplate.resourceCountIs('AWS::Route53::HostedZone', 0);
    });

    it('validates the wildcard certificate by DNS in that zone, from the us-east-1 certificate stack', () => {
      expect(certStack.region).toBe('us-east-1');
      const cert = Object.values(certTemplate.findResources('AWS::CertificateManager::Certificate'))[0]?.Properties as Json;
      expect(cert.DomainName).toBe(`*.${domain}`);
      expect(cert.SubjectAlternativeNames).toEqual([domain]);
      expect(cert.ValidationMethod).toBe('DNS');
      // `*.<domain>` and `<domain>` share one validation record: CDK lists the zone once.
      expect(cert.DomainValidationOptions).toHaveLength(1);
      expect(cert.DomainValidationOptions[0].DomainName).toBe(domain);
      expect(JSON.stringify(cert.DomainValidationOptions[0].HostedZoneId)).toContain(zoneStack.stackName);
    });

    it('takes an existing zone from platform.hostedZone instead (no zone stack)', () => {
      const existing = loadConfig({ platform: { domain: 'apps.acme.net', hostedZone: { id: 'Z0123456789ABCDEFGHIJ', name: 'acme.net' } } });
      const app = new App({ context: cdkJsonContext() });
      const stack = new EdgeCertificateStack(app, 'Existing-EdgeCertificate', { config: existing });
      const cert = Object.values(Template.fromStack(stack).findResources('AWS::CertificateManager::Certificate'))[0]?.Properties as Json;
      expect(cert.DomainValidationOptions).toEqual([{ DomainName: 'apps.acme.net', HostedZoneId: 'Z0123456789ABCDEFGHIJ' }]);
      expect(() => new EdgeCertificateStack(app, 'NoZone-EdgeCertificate', { config })).toThrow(/platform\.hostedZone/);
    });

    it('refuses a stack outside us-east-1 (CloudFront takes viewer certificates from there only)', () => {
      const app = new App();
      const stack = new Stack(app, 'Elsewhere', { env: { region: 'eu-west-1' } });
      const zoneStack = new Stack(app, 'ZoneElsewhere', { env: { region: 'us-east-1' } });
      const zone = new route53.PublicHostedZone(zoneStack, 'Zone', { zoneName: domain });
      expect(() => new EdgeCertificate(stack, 'Certificate', { domain, zone })).toThrow(/us-east-1/);
    });
  });

  describe('distribution', () => {
    it('is a multi-tenant distribution (connectionMode tenant-only) in front of the site bucket through OAC', () => {
      const config = props(edge.distribution).DistributionConfig;
      expect(config.ConnectionMode).toBe('tenant-only');
      expect(config.Enabled).toBe(true);
      expect(config.Origins).toEqual([
        {
          Id: SITE_ORIGIN_ID,
          DomainName: { 'Fn::GetAtt': [idOf(dataStack.projects.siteBucket), 'RegionalDomainName'] },
          OriginAccessControlId: { 'Fn::GetAtt': [idOf(edge.originAccessControl), 'Id'] },
          S3OriginConfig: { OriginAccessIdentity: '' },
        },
      ]);
      template.hasResourceProperties('AWS::CloudFront::OriginAccessControl', {
        OriginAccessControlConfig: { OriginAccessControlOriginType: 's3', SigningBehavior: 'always', SigningProtocol: 'sigv4' },
      });
    });

    it('runs the viewer-request function on the default behavior, redirects HTTP to HTTPS, caches by URI', () => {
      const behavior = props(edge.distribution).DistributionConfig.DefaultCacheBehavior;
      expect(behavior).toMatchObject({
        TargetOriginId: SITE_ORIGIN_ID,
        ViewerProtocolPolicy: 'redirect-to-https',
        AllowedMethods: ['GET', 'HEAD'],
        CachePolicyId: { Ref: idOf(edge.cachePolicy) },
        FunctionAssociations: [
          { EventType: 'viewer-request', FunctionARN: { 'Fn::GetAtt': [idOf(edge.viewerRequest), 'FunctionARN'] } },
        ],
      });
      const cache = props(edge.cachePolicy).CachePolicyConfig.ParametersInCacheKeyAndForwardedToOrigin;
      expect(cache).toMatchObject({
        HeadersConfig: { HeaderBehavior: 'none' },
        CookiesConfig: { CookieBehavior: 'none' },
        QueryStringsConfig: { QueryStringBehavior: 'none' },
        EnableAcceptEncodingGzip: true,
        EnableAcceptEncodingBrotli: true,
      });
    });

    it('uses the us-east-1 wildcard certificate (SNI, TLS 1.2 2021) as the tenants\' shared default', () => {
      const viewer = props(edge.distribution).DistributionConfig.ViewerCertificate;
      expect(viewer.SslSupportMethod).toBe('sni-only');
      expect(viewer.MinimumProtocolVersion).toBe('TLSv1.2_2021');
      expect(fromCertStack(viewer.AcmCertificateArn)).toEqual({ Ref: idIn(certStack, certStack.edgeZone.certificate) });
    });

    it('lets only this distribution read the site objects (OAC bucket policy)', () => {
      template.hasResourceProperties('AWS::S3::BucketPolicy', {
        Bucket: { Ref: idOf(dataStack.projects.siteBucket) },
        PolicyDocument: {
          Statement: Match.arrayWith([
            {
              Sid: 'CloudFrontReadsSites',
              Effect: 'Allow',
              Principal: { Service: 'cloudfront.amazonaws.com' },
              Action: 's3:GetObject',
              Resource: { 'Fn::Join': ['', [{ 'Fn::GetAtt': [idOf(dataStack.projects.siteBucket), 'Arn'] }, '/*']] },
              Condition: {
                StringEquals: {
                  'AWS:SourceArn': {
                    'Fn::Join': ['', ['arn:aws:cloudfront::', { Ref: 'AWS::AccountId' }, ':distribution/', { Ref: idOf(edge.distribution) }]],
                  },
                },
              },
            },
          ]),
        },
      });
    });
  });

  describe('viewer-request function', () => {
    it('runs on cloudfront-js-2.0 with the KeyValueStore associated', () => {
      const fn = props(edge.viewerRequest);
      expect(fn.AutoPublish).toBe(true);
      expect(fn.FunctionConfig.Runtime).toBe('cloudfront-js-2.0');
      expect(fn.FunctionConfig.KeyValueStoreAssociations).toEqual([
        { KeyValueStoreARN: { 'Fn::GetAtt': [idOf(dataStack.projects.keyValueStore), 'Arn'] } },
      ]);
    });

    it('deploys exactly functionSource(kvsId) with the KeyValueStore\'s id', () => {
      const code = props(edge.viewerRequest).FunctionCode['Fn::Join'] as [string, Json[]];
      const kvsId = { 'Fn::GetAtt': [idOf(dataStack.projects.keyValueStore), 'Id'] };
      const parts = code[1].map((part) => {
        if (typeof part === 'string') return part;
        expect(part).toEqual(kvsId);
        return 'KVS-ID-UNDER-TEST';
      });
      expect(parts.join(code[0])).toBe(functionSource('KVS-ID-UNDER-TEST'));
    });
  });

  describe('connection group, default tenant and DNS', () => {
    it('has a connection group (IPv6) and a default tenant for *.<domain> on it with the wildcard certificate', () => {
      expect(props(edge.connectionGroup)).toMatchObject({ Enabled: true, Ipv6Enabled: true });
      const tenant = props(edge.defaultTenant);
      expect(tenant).toMatchObject({
        DistributionId: { Ref: idOf(edge.distribution) },
        ConnectionGroupId: { 'Fn::GetAtt': [idOf(edge.connectionGroup), 'Id'] },
        Domains: [`*.${domain}`],
        Enabled: true,
      });
      expect(fromCertStack(tenant.Customizations.Certificate.Arn)).toEqual({
        Ref: idIn(certStack, certStack.edgeZone.certificate),
      });
      template.resourceCountIs('AWS::CloudFront::DistributionTenant', 1);
    });

    it('points the default-subdomain wildcard and the per-domain targets\' wildcard (no bare edge.<domain> record) at the connection group\'s routing endpoint, in the platform zone', () => {
      const routingEndpoint = { 'Fn::GetAtt': [idOf(edge.connectionGroup), 'RoutingEndpoint'] };
      const zoneId = { Ref: idIn(zoneStack, zoneStack.platformZone.zone) };
      const records = Object.values(template.findResources('AWS::Route53::RecordSet')).map((r) => r.Properties as Json);
      // *.edge.<domain>: the wildcard at <domain> does not answer below edge.<domain>, which exists (RFC 4592).
      const host = platformHostOf(domain);
      expect(records.map((r) => r.Name).sort()).toEqual([`*.${host}.`, `*.${domain}.`]);
      for (const record of records) {
        expect(record.Type).toBe('CNAME');
        expect(record.ResourceRecords).toEqual([routingEndpoint]);
        expect(fromZoneStack(record.HostedZoneId)).toEqual(zoneId);
      }
      expect(edge.platformHost).toBe(`edge.${domain}`);
    });
  });

  it('refuses a site bucket from another stack (its one bucket policy must name the distribution)', () => {
    const app = new App({ context: cdkJsonContext() });
    const { certStack: zoneStack } = edgeStacks(app, 'Z', config);
    const other = new Stack(app, 'Other', { env: { region: config.platform.region }, crossRegionReferences: true });
    const data = new ProjectsData(other, 'Projects');
    const stack = new Stack(app, 'Edge', { env: { region: config.platform.region }, crossRegionReferences: true });
    expect(
      () =>
        new Edge(stack, 'Edge', {
          domain,
          data,
          zone: zoneStack.edgeZone.zone,
          certificate: zoneStack.edgeZone.certificate,
        }),
    ).toThrow(/same stack/);
  });
});
