import { App, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { ProjectsData } from '../../../../lib/constructs/domains/projects-data.js';
import { DOMAIN_TABLE_KEYS } from '../../../../contracts/domains.js';
import { cdkJsonContext } from '../../support/cdk-app.js';

type Json = ReturnType<Template['toJSON']>;

describe('ProjectsData', () => {
  let stack: Stack;
  let data: ProjectsData;
  let template: Template;
  let resources: Json;
  const idOf = (construct: { node: { defaultChild?: unknown } }) =>
    stack.getLogicalId(construct.node.defaultChild as Parameters<Stack['getLogicalId']>[0]);

  beforeAll(() => {
    const app = new App({ context: cdkJsonContext() });
    stack = new Stack(app, 'Test-ProjectsData', { env: { region: 'eu-west-1' } });
    data = new ProjectsData(stack, 'Projects');
    template = Template.fromStack(stack);
    resources = template.toJSON().Resources;
  });

  it('creates the Projects and Domains tables keyed as DOMAIN_TABLE_KEYS, on demand, PITR, encrypted, retained', () => {
    template.resourceCountIs('AWS::DynamoDB::Table', 2);
    for (const [name, keys] of Object.entries(DOMAIN_TABLE_KEYS)) {
      const table = resources[idOf(data.tables[name as keyof typeof DOMAIN_TABLE_KEYS])];
      expect(table.DeletionPolicy, name).toBe('Retain');
      expect(table.UpdateReplacePolicy, name).toBe('Retain');
      const p = table.Properties;
      expect(p.BillingMode, name).toBe('PAY_PER_REQUEST');
      expect(p.PointInTimeRecoverySpecification, name).toEqual({ PointInTimeRecoveryEnabled: true });
      expect(p.SSESpecification, name).toEqual({ SSEEnabled: true });
      expect(p.DeletionProtectionEnabled, name).toBe(true);
      expect(p.KeySchema, name).toEqual([{ AttributeName: keys.partitionKey, KeyType: 'HASH' }]);
      const idx = 'accountIndex' in keys ? keys.accountIndex : keys.projectIndex;
      expect(p.GlobalSecondaryIndexes, name).toEqual([
        {
          IndexName: idx.name,
          KeySchema: [
            { AttributeName: idx.partitionKey, KeyType: 'HASH' },
            { AttributeName: idx.sortKey, KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        },
      ]);
    }
  });

  it('lets pages upload deploy files with presigned PUTs (CORS: PUT only, the signed checksum header)', () => {
    expect(resources[idOf(data.siteBucket)].Properties.CorsConfiguration).toEqual({
      CorsRules: [
        {
          AllowedMethods: ['PUT'],
          AllowedOrigins: ['https://*.cloudfront.net'],
          AllowedHeaders: ['content-type', 'x-amz-checksum-sha256'],
          ExposedHeaders: ['ETag'],
          MaxAge: 3600,
        },
      ],
    });
  });

  it('keeps the sites private, encrypted, TLS only, versioned and logged to the access-log bucket', () => {
    const site = resources[idOf(data.siteBucket)];
    expect(site.DeletionPolicy).toBe('Retain');
    expect(site.Properties).toMatchObject({
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] },
      VersioningConfiguration: { Status: 'Enabled' },
      LoggingConfiguration: { DestinationBucketName: { Ref: idOf(data.logBucket) }, LogFilePrefix: 'sites/' },
      OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] },
    });
    for (const bucket of [data.siteBucket, data.logBucket]) {
      template.hasResourceProperties('AWS::S3::BucketPolicy', {
        Bucket: { Ref: idOf(bucket) },
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({ Effect: 'Deny', Action: 's3:*', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
          ]),
        },
      });
    }
    expect(resources[idOf(data.logBucket)].Properties.LifecycleConfiguration.Rules[0].ExpirationInDays).toBe(90);
  });

  it('retains the KeyValueStore (run-time data: host -> serve/redirect/removed)', () => {
    const kvs = resources[idOf(data.keyValueStore)];
    expect(kvs.Type).toBe('AWS::CloudFront::KeyValueStore');
    expect(kvs.DeletionPolicy).toBe('Retain');
  });

  it('can be destroyed with its stack when asked (no deletion protection then)', () => {
    const app = new App({ context: cdkJsonContext() });
    const s = new Stack(app, 'Test-Disposable', { env: { region: 'eu-west-1' } });
    new ProjectsData(s, 'Projects', { removalPolicy: RemovalPolicy.DESTROY });
    const t = Template.fromStack(s);
    for (const table of Object.values(t.findResources('AWS::DynamoDB::Table'))) {
      expect(table.DeletionPolicy).toBe('Delete');
      expect(table.Properties.DeletionProtectionEnabled).toBe(false);
    }
  });
});
