import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { creationUniqueName } from '../shared/names.js';
import { DOMAIN_TABLE_KEYS, SITE_UPLOAD_CORS } from '../../../contracts/domains.js';

/** The tables of projects and custom domains (names as in `DOMAIN_TABLE_KEYS`). */
export interface ProjectsTables {
  /** Projects by id; GSI `byAccount` (accountId, createdAt) lists an account's projects. */
  readonly projects: dynamodb.ITable;
  /** Custom domains by normalised name (one project per domain); GSI `byProject` (projectId, domain). */
  readonly domains: dynamodb.ITable;
}

/** What the edge and the domain flow need from the stateful part. */
export interface ProjectsDataResources {
  readonly tables: ProjectsTables;
  /**
   * Every project's files under `projects/<projectId>/`: uploads at `content/<sha256>` (presigned
   * PUTs), published deploys at `deploys/<deployId>/` (read by CloudFront only, OAC), manifests.
   */
  readonly siteBucket: s3.Bucket;
  /** Host name → serve / redirect / removed (EDGE_VALUE), read by the viewer-request function. */
  readonly keyValueStore: cloudfront.KeyValueStore;
}

export interface ProjectsDataProps {
  /**
   * Removal policy of the tables, buckets and the KeyValueStore. Tables that are retained also
   * get deletion protection.
   * @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;
  /**
   * How long the server access logs of the site bucket are kept.
   * @default Duration.days(90)
   */
  readonly accessLogRetention?: Duration;
  /**
   * How long overwritten or deleted versions of site objects are kept (deploys are written under
   * new prefixes, so these only come from re-uploads and removals).
   * @default Duration.days(30)
   */
  readonly noncurrentVersionRetention?: Duration;
  /**
   * Origins whose pages may PUT deploy files with presigned URLs (the bucket's CORS rule). The
   * dashboard's own origin is its CloudFront distribution's name, made in the dashboard stack,
   * which deploys after this one and so cannot be named here; the default admits CloudFront-hosted
   * origins. CORS only decides which pages' scripts may use a URL: the URL itself (one key, its
   * length and SHA-256, 10 minutes) is the authorization, signed by the control function.
   * @default ['https://*.cloudfront.net']
   */
  readonly uploadOrigins?: readonly string[];
}

/**
 * The stateful resources of projects and custom domains: the Projects and Domains tables
 * (on-demand, point-in-time recovery, AWS-managed KMS encryption, retained), the site bucket that
 * holds every deploy (private, SSE-S3, TLS only, versioned, server access logs to a log bucket)
 * and the CloudFront KeyValueStore the viewer-request function reads per host name.
 *
 * The KeyValueStore is data written at run time by the account service and the domain flow
 * (`EDGE_VALUE`), so it is retained like the tables: replacing it would empty it and every site
 * would answer 404 until it is rebuilt.
 */
export class ProjectsData extends Construct implements ProjectsDataResources {
  readonly tables: ProjectsTables;
  readonly siteBucket: s3.Bucket;
  readonly logBucket: s3.Bucket;
  readonly keyValueStore: cloudfront.KeyValueStore;

  constructor(scope: Construct, id: string, props: ProjectsDataProps = {}) {
    super(scope, id);
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;

    const table = (tableId: string, partitionKey: string) =>
      new dynamodb.Table(this, tableId, {
        partitionKey: { name: partitionKey, type: dynamodb.AttributeType.STRING },
        billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
        pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
        encryption: dynamodb.TableEncryption.AWS_MANAGED,
        removalPolicy,
        deletionProtection: removalPolicy === RemovalPolicy.RETAIN,
      });
    const index = (t: dynamodb.Table, idx: { name: string; partitionKey: string; sortKey: string }) =>
      t.addGlobalSecondaryIndex({
        indexName: idx.name,
        partitionKey: { name: idx.partitionKey, type: dynamodb.AttributeType.STRING },
        sortKey: { name: idx.sortKey, type: dynamodb.AttributeType.STRING },
        projectionType: dynamodb.ProjectionType.ALL,
      });

    const projects = table('Projects', DOMAIN_TABLE_KEYS.projects.partitionKey);
    index(projects, DOMAIN_TABLE_KEYS.projects.accountIndex);
    const domains = table('Domains', DOMAIN_TABLE_KEYS.domains.partitionKey);
    index(domains, DOMAIN_TABLE_KEYS.domains.projectIndex);
    this.tables = { projects, domains };

    // Server access logs of the site bucket. S3 delivers them with the logging service principal,
    // allowed by a bucket policy (feature flag @aws-cdk/aws-s3:serverAccessLogsUseBucketPolicy).
    // The log bucket does not log its own accesses (cdk-nag S1 accepts a logging target as is).
    this.logBucket = new s3.Bucket(this, 'AccessLogs', {
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      lifecycleRules: [{ expiration: props.accessLogRetention ?? Duration.days(90) }],
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
      // Browser uploads of deploy files (docs/projects.md): PUT only, with the signed checksum header.
      cors: [
        {
          allowedMethods: [s3.HttpMethods.PUT],
          allowedOrigins: [...(props.uploadOrigins ?? ['https://*.cloudfront.net'])],
          allowedHeaders: [...SITE_UPLOAD_CORS.allowedHeaders],
          exposedHeaders: [...SITE_UPLOAD_CORS.exposedHeaders],
          maxAge: SITE_UPLOAD_CORS.maxAgeSeconds,
        },
      ],
      lifecycleRules: [
        {
          noncurrentVersionExpiration: props.noncurrentVersionRetention ?? Duration.days(30),
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
