import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { creationUniqueName } from '../shared/names.js';
import { platformTable, withIndex } from '../messages/messages-data.js';
import { DOMAIN_TABLE_KEYS, SITE_UPLOAD_CORS } from '../../../contracts/domains.js';

/** Tables, site bucket and KeyValueStore, all retained: a new store would be empty and every site 404. */
export class ProjectsData extends Construct {
  /** Keys and indexes: DOMAIN_TABLE_KEYS. */
  readonly tables: { readonly projects: dynamodb.Table; readonly domains: dynamodb.Table };
  /** `projects/<projectId>/`: uploads at `content/<sha256>`, deploys at `deploys/<deployId>/`. */
  readonly siteBucket: s3.Bucket;
  readonly logBucket: s3.Bucket;
  /** Host name → serve / redirect / removed (EDGE_VALUE), read by the viewer-request function. */
  readonly keyValueStore: cloudfront.KeyValueStore;

  /** `removalPolicy` (default RETAIN; retained tables get deletion protection). */
  constructor(scope: Construct, id: string, props: { readonly removalPolicy?: RemovalPolicy } = {}) {
    super(scope, id);
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;

    const { projects, domains } = DOMAIN_TABLE_KEYS;
    const table = (tableId: string, partitionKey: string) =>
      platformTable(this, tableId, { partitionKey, removalPolicy });
    this.tables = {
      projects: withIndex(table('Projects', projects.partitionKey), projects.accountIndex),
      domains: withIndex(table('Domains', domains.partitionKey), domains.projectIndex),
    };

    // S3 delivers the site bucket's access logs by a bucket policy (serverAccessLogsUseBucketPolicy).
    this.logBucket = new s3.Bucket(this, 'AccessLogs', {
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      lifecycleRules: [{ expiration: Duration.days(90) }],
      removalPolicy,
    });

    // SSE-S3 rather than SSE-KMS: CloudFront reads through Origin Access Control, and a customer
    // key would need a key policy for the CloudFront service principal for every object read.
    this.siteBucket = new s3.Bucket(this, 'Sites', {
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      versioned: true,
      serverAccessLogsBucket: this.logBucket,
      serverAccessLogsPrefix: 'sites/',
      // Browser uploads (docs/projects.md). The dashboard's distribution is made in a later stack, so
      // any CloudFront origin is admitted: the presigned URL itself is the authorization.
      cors: [
        {
          allowedMethods: [s3.HttpMethods.PUT],
          allowedOrigins: ['https://*.cloudfront.net'],
          allowedHeaders: [...SITE_UPLOAD_CORS.allowedHeaders],
          exposedHeaders: [...SITE_UPLOAD_CORS.exposedHeaders],
          maxAge: SITE_UPLOAD_CORS.maxAgeSeconds,
        },
      ],
      lifecycleRules: [
        {
          noncurrentVersionExpiration: Duration.days(30),
          abortIncompleteMultipartUploadAfter: Duration.days(7),
        },
      ],
      removalPolicy,
    });

    this.keyValueStore = new cloudfront.KeyValueStore(this, 'KeyValueStore', {
      // Names are unique per account across regions, and the store is retained: see names.ts.
      keyValueStoreName: creationUniqueName(Stack.of(this), 'sites', 64),
      comment: 'Host name -> serve a deploy prefix, redirect, or removed (viewer-request function)',
    });
    this.keyValueStore.applyRemovalPolicy(removalPolicy);
  }
}
