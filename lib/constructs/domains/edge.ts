/*
 * The edge of project sites: one CloudFront multi-tenant distribution (SaaS Manager), its
 * connection group, the viewer-request CloudFront Function with the KeyValueStore, and the DNS.
 *
 * Quotas, as documented on 2026-11-21 (all adjustable through AWS Support unless marked):
 *   From "Quotas on multi-tenant distributions" / "Quotas on key value stores",
 *   https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/cloudfront-limits.html
 *   - distribution tenants per AWS account: 10,000 (no separate per-distribution quota)
 *   - aliases (domains) per distribution tenant: 100
 *   - multi-tenant distributions per account: 20; connection groups per account: 100
 *   - parameters per tenant / per multi-tenant distribution: 5
 *   - KeyValueStore: 5 MB per store, key 512 bytes, value 1 KB, 1 store per function (not adjustable)
 *   - CloudFront Functions: 10 KB of code (not adjustable)
 *   From the API reference of UpdateDistributionTenant,
 *   https://docs.aws.amazon.com/cloudfront/latest/APIReference/API_UpdateDistributionTenant.html
 *   - "Each distribution tenant can have up to 5 domains" (contradicts the 100 above: we design
 *     for the stricter 5, as lambda/domains/cloudfront-certificate-authority.ts enforces)
 *   - one pending certificate request per tenant (CloudFront Developer Guide, managed certificates)
 *
 * Design for them:
 *   - Default subdomains (`<slug>.<platform domain>`) use NO tenant of their own: they are all
 *     served by the one default tenant created here for `*.<platform domain>` with the wildcard
 *     ACM certificate. Projects without custom domains cost no tenant.
 *   - Custom domains get tenants created at run time by the domain flow on this distribution and
 *     connection group, with a CloudFront-managed certificate (HTTP validation). The certificate
 *     adapter (lambda/domains/cloudfront-certificate-authority.ts) supports one tenant per project
 *     (`tenancy: 'project'`, up to 5 domains each: 10,000 projects with custom domains per account)
 *     and one tenant per domain (`tenancy: 'domain'`: 10,000 custom domains per account). The
 *     deployed handler (lambda/domains/flow-handlers.ts) chooses per domain, because a tenant holds
 *     one pending certificate request at a time, so a project's second domain would wait for the
 *     first one's certificate, and one failing domain (e.g. CAA) would hold up its siblings.
 *     Per project would stretch the account 5x further; switching is one option in the handler
 *     module, and the IAM of the flow is the same for both.
 *   - At a limit: CloudFront refuses CreateDistributionTenant (tenants per account) or
 *     UpdateDistributionTenant (domains per tenant) with EntityLimitExceeded; the adapter turns it
 *     into TenantLimitError / DomainLimitError, the task throws, the execution fails (FlowFailed),
 *     the domain keeps its previous state, and the ExecutionsFailed alarm fires. The operator asks
 *     AWS Support for more tenants (past what AWS grants, a second account: tenants cannot span
 *     accounts); the owner of a project at its domain limit removes a domain. The flow never
 *     borrows another project's or domain's tenant.
 *   - The KeyValueStore holds one small entry per served host (~300 bytes: host key + JSON value),
 *     so 5 MB is roughly 15,000 hosts. Beyond that the store must be split, which needs a second
 *     distribution and function (a function reads one store).
 *   - Routing needs no tenant parameters: the function maps the Host header to the deploy prefix
 *     through the KeyValueStore and rewrites the URI, so `tenantConfig` defines none.
 */
import { Duration, RemovalPolicy, Stack, Token, Validations } from 'aws-cdk-lib';
import * as certificatemanager from 'aws-cdk-lib/aws-certificatemanager';
import * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as route53 from 'aws-cdk-lib/aws-route53';
import { Construct } from 'constructs';
import { functionSource } from '../../../edge/cloudfront-function.js';
import { accountUniqueName } from '../shared/names.js';
import type { ProjectsDataResources } from './projects-data.js';
import { platformHostOf } from '../../../contracts/domains.js';

/** CloudFront only accepts viewer certificates from ACM in this region. */
export const CLOUDFRONT_CERTIFICATE_REGION = 'us-east-1';

export { PLATFORM_HOST_LABEL, platformHostOf } from '../../../contracts/domains.js';

/** The id of the single origin (the site bucket) in the distribution. */
export const SITE_ORIGIN_ID = 'sites';

/** TTL of the platform's own CNAME records (platform host and wildcards). */
export const EDGE_RECORD_TTL = Duration.minutes(5);

export interface PlatformZoneProps {
  /** The platform domain (config.platform.domain): the zone apex. */
  readonly domain: string;
}

/**
 * The platform's public hosted zone, alone in its stack (`<prefix>-EdgeZone`) so that it is
 * complete, with its name servers in the stack outputs, before anything waits for its delegation
 * (the wildcard certificate). Retained: the registrar points at its name servers, and a new zone
 * would get new ones. A re-created environment reuses it through `platform.hostedZone`.
 */
export class PlatformZone extends Construct {
  readonly zone: route53.PublicHostedZone;

  constructor(scope: Construct, id: string, props: PlatformZoneProps) {
    super(scope, id);
    this.zone = new route53.PublicHostedZone(this, 'Zone', {
      zoneName: props.domain,
      comment: 'Platform zone: default project subdomains, the platform host, certificate validation',
    });
    this.zone.applyRemovalPolicy(RemovalPolicy.RETAIN);
  }
}

/** The zone the platform's records go in, and the wildcard certificate validated in it. */
export interface EdgeZoneResources {
  readonly zone: route53.IHostedZone;
  readonly certificate: certificatemanager.ICertificate;
}

export interface EdgeCertificateProps {
  /** The platform domain (config.platform.domain). */
  readonly domain: string;
  /** A public zone of the domain or of a parent of it, delegated: validation records go there. */
  readonly zone: route53.IHostedZone;
}

/**
 * The wildcard certificate (`*.<domain>` and `<domain>`) validated by DNS in the platform zone.
 * It must be in a us-east-1 stack: CloudFront takes viewer certificates from ACM in us-east-1 only.
 * CloudFormation waits until it validates, which needs the zone's delegation to answer.
 */
export class EdgeCertificate extends Construct implements EdgeZoneResources {
  readonly zone: route53.IHostedZone;
  readonly certificate: certificatemanager.Certificate;

  constructor(scope: Construct, id: string, props: EdgeCertificateProps) {
    super(scope, id);
    const region = Stack.of(this).region;
    if (Token.isUnresolved(region) || region !== CLOUDFRONT_CERTIFICATE_REGION) {
      throw new Error(
        `EdgeCertificate ${this.node.path} must be in a stack with env.region ${CLOUDFRONT_CERTIFICATE_REGION} (CloudFront viewer certificates), not ${region}`,
      );
    }
    this.zone = props.zone;
    this.certificate = new certificatemanager.Certificate(this, 'WildcardCertificate', {
      domainName: `*.${props.domain}`,
      subjectAlternativeNames: [props.domain],
      validation: certificatemanager.CertificateValidation.fromDns(props.zone),
    });
  }
}

export interface EdgeProps {
  /** The platform domain (config.platform.domain). */
  readonly domain: string;
  /** The site bucket and the KeyValueStore. The bucket must be in this construct's stack (its policy names the distribution). */
  readonly data: Pick<ProjectsDataResources, 'siteBucket' | 'keyValueStore'>;
  /** The platform zone (records for the platform host and the wildcard). */
  readonly zone: route53.IHostedZone;
  /** The wildcard certificate `*.<domain>` + `<domain>`, in us-east-1. */
  readonly certificate: certificatemanager.ICertificate;
  /**
   * Default TTL of cached objects. Every deploy lives under its own prefix, so cached objects are
   * never stale: a new deploy is served from new URIs as soon as the KeyValueStore points at it.
   * @default Duration.days(1)
   */
  readonly defaultTtl?: Duration;
}

/** What the domain flow (and the account service) need to know about the edge. */
export interface EdgeResources {
  readonly distributionId: string;
  readonly distributionArn: string;
  readonly connectionGroupId: string;
  /** The connection group's routing endpoint (`dxxxx.cloudfront.net`), the target of the platform host. */
  readonly routingEndpoint: string;
  /** `edge.<domain>`: the shared host; each custom domain's own target is `<token>.edge.<domain>`. */
  readonly platformHost: string;
}

/**
 * The multi-tenant distribution (`connectionMode: tenant-only`) in front of the site bucket (Origin
 * Access Control), the viewer-request function (runtime cloudfront-js-2.0, KeyValueStore
 * associated), a connection group whose routing endpoint the platform host points at, the default
 * tenant for `*.<domain>` with the wildcard certificate, and the platform's DNS records.
 *
 * Tenants for custom domains are NOT created here: the domain flow creates them at run time
 * (CreateDistributionTenant with a ManagedCertificateRequest, on this distribution and connection
 * group); see the quota notes at the top of this file.
 */
export class Edge extends Construct implements EdgeResources {
  readonly distribution: cloudfront.CfnDistribution;
  readonly connectionGroup: cloudfront.CfnConnectionGroup;
  readonly defaultTenant: cloudfront.CfnDistributionTenant;
  readonly viewerRequest: cloudfront.Function;
  readonly cachePolicy: cloudfront.CachePolicy;
  readonly originAccessControl: cloudfront.S3OriginAccessControl;
  readonly platformHostRecord: route53.CnameRecord;
  readonly wildcardRecord: route53.CnameRecord;
  readonly targetsRecord: route53.CnameRecord;

  readonly distributionId: string;
  readonly distributionArn: string;
  readonly connectionGroupId: string;
  readonly routingEndpoint: string;
  readonly platformHost: string;

  constructor(scope: Construct, id: string, props: EdgeProps) {
    super(scope, id);
    const stack = Stack.of(this);
    const { siteBucket, keyValueStore } = props.data;
    if (Stack.of(siteBucket) !== stack) {
      throw new Error(
        `Edge ${this.node.path}: the site bucket must be in the same stack (its bucket policy names the distribution, and a bucket has one policy)`,
      );
    }
    this.platformHost = platformHostOf(props.domain);

    this.viewerRequest = new cloudfront.Function(this, 'ViewerRequest', {
      code: cloudfront.FunctionCode.fromInline(functionSource(keyValueStore.keyValueStoreId)),
      runtime: cloudfront.FunctionRuntime.JS_2_0,
      keyValueStore,
      comment: 'Project sites: host -> deploy prefix, one-hop redirects, removed domains refused (KeyValueStore)',
    });

    this.originAccessControl = new cloudfront.S3OriginAccessControl(this, 'OriginAccessControl', {
      originAccessControlName: accountUniqueName(stack, 'sites', 64),
      description: 'Project sites: CloudFront reads the site bucket (SigV4, always signed)',
      signing: cloudfront.Signing.SIGV4_ALWAYS,
    });

    // The function rewrites the URI to /<deploy prefix>/<path> from the Host header, so the URI
    // alone identifies the object: no header, cookie or query string in the cache key.
    this.cachePolicy = new cloudfront.CachePolicy(this, 'CachePolicy', {
      comment: 'Project sites: cache by rewritten URI (deploy prefix + path) only',
      defaultTtl: props.defaultTtl ?? Duration.days(1),
      minTtl: Duration.seconds(0),
      maxTtl: Duration.days(365),
      headerBehavior: cloudfront.CacheHeaderBehavior.none(),
      cookieBehavior: cloudfront.CacheCookieBehavior.none(),
      queryStringBehavior: cloudfront.CacheQueryStringBehavior.none(),
      enableAcceptEncodingGzip: true,
      enableAcceptEncodingBrotli: true,
    });

    this.distribution = new cloudfront.CfnDistribution(this, 'Distribution', {
      distributionConfig: {
        enabled: true,
        comment: `${stack.stackName}: project sites (multi-tenant; custom-domain tenants are created at run time)`,
        connectionMode: 'tenant-only',
        httpVersion: 'http2and3',
        origins: [
          {
            id: SITE_ORIGIN_ID,
            domainName: siteBucket.bucketRegionalDomainName,
            originAccessControlId: this.originAccessControl.originAccessControlId,
            // With OAC the origin access identity must be present and empty.
            s3OriginConfig: { originAccessIdentity: '' },
          },
        ],
        defaultCacheBehavior: {
          targetOriginId: SITE_ORIGIN_ID,
          viewerProtocolPolicy: 'redirect-to-https',
          allowedMethods: ['GET', 'HEAD'],
          cachedMethods: ['GET', 'HEAD'],
          compress: true,
          cachePolicyId: this.cachePolicy.cachePolicyId,
          functionAssociations: [{ eventType: 'viewer-request', functionArn: this.viewerRequest.functionArn }],
        },
        // The shared default certificate of the tenants (the default tenant sets it explicitly
        // too); tenants with custom domains bring their CloudFront-managed certificate.
        viewerCertificate: {
          acmCertificateArn: props.certificate.certificateArn,
          sslSupportMethod: 'sni-only',
          minimumProtocolVersion: 'TLSv1.2_2021',
        },
      },
    });
    this.distributionId = this.distribution.ref;
    this.distributionArn = stack.formatArn({
      service: 'cloudfront',
      region: '',
      resource: 'distribution',
      resourceName: this.distributionId,
    });

    // OAC: CloudFront (this distribution, whichever tenant the request came through) may read objects.
    siteBucket.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'CloudFrontReadsSites',
        principals: [new iam.ServicePrincipal('cloudfront.amazonaws.com')],
        actions: ['s3:GetObject'],
        resources: [siteBucket.arnForObjects('*')],
        conditions: { StringEquals: { 'AWS:SourceArn': this.distributionArn } },
      }),
    );

    this.connectionGroup = new cloudfront.CfnConnectionGroup(this, 'ConnectionGroup', {
      // CloudFront names are unique per account, across regions: the stack name alone is not.
      name: accountUniqueName(stack, 'sites', 128),
      enabled: true,
      ipv6Enabled: true,
    });
    this.connectionGroupId = this.connectionGroup.attrId;
    this.routingEndpoint = this.connectionGroup.attrRoutingEndpoint;

    this.defaultTenant = new cloudfront.CfnDistributionTenant(this, 'DefaultTenant', {
      name: accountUniqueName(stack, 'default-subdomains', 128),
      distributionId: this.distributionId,
      connectionGroupId: this.connectionGroupId,
      domains: [`*.${props.domain}`],
      enabled: true,
      customizations: { certificate: { arn: props.certificate.certificateArn } },
    });

    // The platform host and the wildcard both CNAME to the connection group's routing endpoint
    // (a connection group has no alias target of its own).
    this.platformHostRecord = new route53.CnameRecord(this, 'PlatformHostRecord', {
      zone: props.zone,
      recordName: this.platformHost,
      domainName: this.routingEndpoint,
      ttl: EDGE_RECORD_TTL,
      comment: 'The shared platform host: domains added before per-domain targets still point here',
    });
    this.wildcardRecord = new route53.CnameRecord(this, 'WildcardRecord', {
      zone: props.zone,
      recordName: `*.${props.domain}`,
      domainName: this.routingEndpoint,
      ttl: EDGE_RECORD_TTL,
      comment: 'Default project subdomains <slug>.<platform domain>',
    });
    // Each custom domain's own target, <token>.edge.<domain>. The wildcard above does not cover
    // them: edge.<domain> exists, so a name below it is answered by a wildcard at edge.<domain>
    // (RFC 4592) or not at all. A target no claim holds any more still resolves, but nothing
    // verifies against it and no tenant serves it.
    this.targetsRecord = new route53.CnameRecord(this, 'TargetsRecord', {
      zone: props.zone,
      recordName: `*.${this.platformHost}`,
      domainName: this.routingEndpoint,
      ttl: EDGE_RECORD_TTL,
      comment: 'Per-domain targets <token>.edge.<platform domain>: customers CNAME their domains here',
    });

    this.acknowledgeNagFindings();
  }

  private acknowledgeNagFindings(): void {
    Validations.of(this.distribution).acknowledge({
      id: 'AwsSolutions::AwsSolutions-CFR1',
      reason:
        'Project sites are public static websites published by customers for a worldwide audience; the platform has no country restriction to enforce. A tenant can still get geo restrictions as a tenant customization if a customer needs one.',
    });
    Validations.of(this.distribution).acknowledge({
      id: 'AwsSolutions::AwsSolutions-CFR2',
      reason:
        'No WAF web ACL: the sites are static files from S3 behind OAC (no application, no forms, no origin compute to protect), unknown and removed hosts are refused at the edge by the viewer-request function, and CloudFront has AWS Shield Standard. A web ACL can be attached to the distribution or per tenant later without changing this design.',
    });
    Validations.of(this.distribution).acknowledge({
      id: 'AwsSolutions::AwsSolutions-CFR3',
      reason:
        'Legacy standard logging needs an S3 bucket with ACLs enabled (the platform buckets keep ACLs disabled: BucketOwnerEnforced), and standard logging v2 is configured through CloudWatch Logs delivery sources that must be created in us-east-1, while this stack is in the platform region. Access logging for the edge is a deliberate follow-up in the us-east-1 stack; the site bucket has server access logs meanwhile.',
    });
  }
}
