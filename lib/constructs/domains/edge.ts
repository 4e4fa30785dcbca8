// The edge of project sites; quotas and the tenancy choice: docs/contributors/domain-flow.md.
import { Duration, RemovalPolicy, Stack, Token } from 'aws-cdk-lib';
import * as certificatemanager from 'aws-cdk-lib/aws-certificatemanager';
import * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as route53 from 'aws-cdk-lib/aws-route53';
import { Construct } from 'constructs';
import { functionSource } from '../../../edge/cloudfront-function.js';
import { cloudfrontArn } from '../shared/arns.js';
import { accountUniqueName } from '../shared/names.js';
import { acknowledgeNag } from '../shared/nag.js';
import type { ProjectsData } from './projects-data.js';
import { platformHostOf } from '../../../contracts/domains.js';

/** CloudFront only accepts viewer certificates from ACM in this region. */
export const CLOUDFRONT_CERTIFICATE_REGION = 'us-east-1';

export const SITE_ORIGIN_ID = 'sites';

/** The platform zone, alone in its stack so its name servers exist before the certificate waits; retained. */
export class PlatformZone extends Construct {
  readonly zone: route53.PublicHostedZone;

  constructor(scope: Construct, id: string, props: { readonly domain: string }) {
    super(scope, id);
    this.zone = new route53.PublicHostedZone(this, 'Zone', {
      zoneName: props.domain,
      comment: 'Platform zone: default project subdomains, the platform host, certificate validation',
    });
    this.zone.applyRemovalPolicy(RemovalPolicy.RETAIN);
  }
}

/** The wildcard certificate (`*.<domain>` and `<domain>`), DNS-validated in `zone`; us-east-1 stacks only. */
export class EdgeCertificate extends Construct {
  /** The zone the platform's records go in. */
  readonly zone: route53.IHostedZone;
  readonly certificate: certificatemanager.Certificate;

  constructor(scope: Construct, id: string, props: { readonly domain: string; readonly zone: route53.IHostedZone }) {
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
  readonly domain: string;
  /** The bucket must be in this construct's stack (its policy names the distribution). */
  readonly data: Pick<ProjectsData, 'siteBucket' | 'keyValueStore'>;
  readonly zone: route53.IHostedZone;
  /** The wildcard certificate `*.<domain>` + `<domain>`, in us-east-1. */
  readonly certificate: certificatemanager.ICertificate;
}

/** The multi-tenant distribution and its DNS; custom domains' tenants are created at run time by the flow. */
export class Edge extends Construct {
  readonly distribution: cloudfront.CfnDistribution;
  readonly connectionGroup: cloudfront.CfnConnectionGroup;
  readonly defaultTenant: cloudfront.CfnDistributionTenant;
  readonly viewerRequest: cloudfront.Function;
  readonly cachePolicy: cloudfront.CachePolicy;
  readonly originAccessControl: cloudfront.S3OriginAccessControl;
  readonly distributionId: string;
  readonly connectionGroupId: string;
  /** `edge.<domain>`: the parent of each custom domain's own target `<token>.edge.<domain>`. */
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
    // alone identifies the object: no header, cookie or query string in the cache key (CachePolicy's
    // defaults, as are its TTLs: a day, up to a year; every deploy has its own prefix, never stale).
    this.cachePolicy = new cloudfront.CachePolicy(this, 'CachePolicy', {
      comment: 'Project sites: cache by rewritten URI (deploy prefix + path) only',
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
    const distributionArn = cloudfrontArn(stack, 'distribution', this.distributionId);

    // OAC: CloudFront (this distribution, whichever tenant the request came through) may read objects.
    siteBucket.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'CloudFrontReadsSites',
        principals: [new iam.ServicePrincipal('cloudfront.amazonaws.com')],
        actions: ['s3:GetObject'],
        resources: [siteBucket.arnForObjects('*')],
        conditions: { StringEquals: { 'AWS:SourceArn': distributionArn } },
      }),
    );

    this.connectionGroup = new cloudfront.CfnConnectionGroup(this, 'ConnectionGroup', {
      // CloudFront names are unique per account, across regions: the stack name alone is not.
      name: accountUniqueName(stack, 'sites', 128),
      enabled: true,
      ipv6Enabled: true,
    });
    this.connectionGroupId = this.connectionGroup.attrId;
    const routingEndpoint = this.connectionGroup.attrRoutingEndpoint;

    this.defaultTenant = new cloudfront.CfnDistributionTenant(this, 'DefaultTenant', {
      name: accountUniqueName(stack, 'default-subdomains', 128),
      distributionId: this.distributionId,
      connectionGroupId: this.connectionGroupId,
      domains: [`*.${props.domain}`],
      enabled: true,
      customizations: { certificate: { arn: props.certificate.certificateArn } },
    });

    // CNAMEs to the routing endpoint (a connection group has no alias target of its own). The first
    // does not cover <token>.edge.<domain>: the second makes edge.<domain> exist (RFC 4592).
    const records = {
      WildcardRecord: [`*.${props.domain}`, 'Default project subdomains <slug>.<platform domain>'],
      TargetsRecord: [`*.${this.platformHost}`, 'Per-domain targets <token>.edge.<platform domain>: customers CNAME their domains here'],
    };
    for (const [id, [recordName, comment]] of Object.entries(records)) {
      const ttl = Duration.minutes(5);
      new route53.CnameRecord(this, id, { zone: props.zone, recordName, domainName: routingEndpoint, ttl, comment });
    }

    acknowledgeNag(this.distribution, {
      CFR1:
        'Project sites are public static websites published by customers for a worldwide audience; the platform has no country restriction to enforce. A tenant can still get geo restrictions as a tenant customization if a customer needs one.',
      CFR2:
        'No WAF web ACL: the sites are static files from S3 behind OAC (no application, no forms, no origin compute to protect), unknown and removed hosts are refused at the edge by the viewer-request function, and CloudFront has AWS Shield Standard. A web ACL can be attached to the distribution or per tenant later without changing this design.',
      CFR3:
        'Legacy standard logging needs an S3 bucket with ACLs enabled (the platform buckets keep ACLs disabled: BucketOwnerEnforced), and standard logging v2 is configured through CloudWatch Logs delivery sources that must be created in us-east-1, while this stack is in the platform region. Access logging for the edge is a deliberate follow-up in the us-east-1 stack; the site bucket has server access logs meanwhile.',
    });
  }
}
