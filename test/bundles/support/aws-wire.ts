import type { StubReply } from './aws-stub.js';

// Answers in each service's wire format, as AWS documents them (API references: CloudFront
// REST-XML 2020-05-31, the KeyValueStore data plane REST-JSON, Step Functions JSON 1.0, API Gateway
// REST-JSON, S3 REST-XML). Only the fields the platform reads are filled in.

const CLOUDFRONT_NS = 'http://cloudfront.amazonaws.com/doc/2020-05-31/';
const xml = { 'content-type': 'text/xml' };
const restJson = { 'content-type': 'application/json' };
const json10 = { 'content-type': 'application/x-amz-json-1.0' };

const escapeXml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export interface TenantFields {
  readonly id: string;
  readonly name: string;
  readonly distributionId: string;
  readonly connectionGroupId: string;
  readonly domains: ReadonlyArray<{ readonly domain: string; readonly status: 'active' | 'inactive' }>;
  readonly enabled: boolean;
  readonly projectId: string;
  readonly etag: string;
}

/** A DistributionTenant document (GetDistributionTenant 200, CreateDistributionTenant 201, Update 200), ETag in its header. */
export function cloudFrontTenant(t: TenantFields, status = 200): StubReply {
  const domains = t.domains
    .map((d) => `<member><Domain>${escapeXml(d.domain)}</Domain><Status>${d.status}</Status></member>`)
    .join('');
  const body =
    `<?xml version="1.0" encoding="UTF-8"?><DistributionTenant xmlns="${CLOUDFRONT_NS}">` +
    `<Id>${t.id}</Id><DistributionId>${t.distributionId}</DistributionId><Name>${escapeXml(t.name)}</Name>` +
    `<Arn>arn:aws:cloudfront::000000000000:distribution-tenant/${t.id}</Arn><Domains>${domains}</Domains>` +
    `<Tags><Items><Tag><Key>projectId</Key><Value>${t.projectId}</Value></Tag></Items></Tags>` +
    `<ConnectionGroupId>${t.connectionGroupId}</ConnectionGroupId>` +
    '<CreatedTime>2026-11-21T10:00:00Z</CreatedTime><LastModifiedTime>2026-11-21T10:00:00Z</LastModifiedTime>' +
    `<Enabled>${t.enabled}</Enabled><Status>Deployed</Status></DistributionTenant>`;
  return { status, headers: { ...xml, etag: t.etag }, body };
}

/** A CloudFront error: `<ErrorResponse><Error><Code>` with the HTTP status the API reference gives it. */
export function cloudFrontError(code: string, status: number, message = code): StubReply {
  const body =
    `<?xml version="1.0" encoding="UTF-8"?><ErrorResponse xmlns="${CLOUDFRONT_NS}"><Error><Type>Sender</Type>` +
    `<Code>${code}</Code><Message>${escapeXml(message)}</Message></Error><RequestId>bundle-stage-stub</RequestId></ErrorResponse>`;
  return { status, headers: xml, body };
}

/** DeleteDistributionTenant: 204 No Content. */
export const cloudFrontDeleted = (): StubReply => ({ status: 204 });

/** DescribeKeyValueStore: the store and its current ETag. */
export function kvsDescribe(kvsArn: string, etag: string, itemCount = 1): StubReply {
  const body = JSON.stringify({
    ItemCount: itemCount, TotalSizeInBytes: 64, KvsARN: kvsArn, Created: 1_795_000_000, Status: 'READY',
  });
  return { status: 200, headers: { ...restJson, etag }, body };
}

/** PutKey/DeleteKey: the store's new size and ETag. */
export function kvsWritten(etag: string, itemCount = 1): StubReply {
  const body = JSON.stringify({ ItemCount: itemCount, TotalSizeInBytes: 64 });
  return { status: 200, headers: { ...restJson, etag }, body };
}

/** GetKey: one key's value. */
export function kvsValue(key: string, value: string): StubReply {
  const body = JSON.stringify({ Key: key, Value: value, ItemCount: 1, TotalSizeInBytes: 64 });
  return { status: 200, headers: restJson, body };
}

/** REST-JSON errors (the KeyValueStore, API Gateway) name their type in X-Amzn-ErrorType. */
export function restJsonError(type: string, status: number, message = type): StubReply {
  return { status, headers: { ...restJson, 'x-amzn-errortype': type }, body: JSON.stringify({ message }) };
}

/** StartExecution (JSON 1.0). */
export function sfnStarted(executionArn: string): StubReply {
  return { status: 200, headers: json10, body: JSON.stringify({ executionArn, startDate: 1_795_000_000.5 }) };
}

/** CreateApiKey: 201 with the generated value (API Gateway answers it on creation). */
export function apiGatewayKeyCreated(id: string, value: string, name: string): StubReply {
  const body = JSON.stringify({ id, value, name, enabled: true, createdDate: 1_795_000_000, stageKeys: [] });
  return { status: 201, headers: restJson, body };
}

/** CreateUsagePlanKey: 201 with the key bound to the plan. */
export function apiGatewayPlanKeyCreated(id: string, name: string): StubReply {
  return { status: 201, headers: restJson, body: JSON.stringify({ id, type: 'API_KEY', name }) };
}

/** PutObject: 200 with the object's ETag, no body. */
export const s3Put = (etag: string): StubReply => ({ status: 200, headers: { etag: `"${etag}"` } });

const S3_NS = 'http://s3.amazonaws.com/doc/2006-03-01/';

/** ListObjectsV2: one page with these objects. */
export function s3Listed(objects: ReadonlyArray<{ key: string; size: number }>): StubReply {
  const contents = objects.map((o) => `<Contents><Key>${o.key}</Key><Size>${o.size}</Size></Contents>`).join('');
  const body = `<?xml version="1.0" encoding="UTF-8"?><ListBucketResult xmlns="${S3_NS}"><KeyCount>${objects.length}</KeyCount>` +
    `<MaxKeys>1000</MaxKeys><IsTruncated>false</IsTruncated>${contents}</ListBucketResult>`;
  return { status: 200, headers: xml, body };
}

/** GetObject: the object's bytes (JSON here: a manifest). */
export const s3Object = (body: string): StubReply => ({ status: 200, headers: { 'content-type': 'application/json' }, body });

/** CopyObject. */
export const s3Copied = (): StubReply => ({
  status: 200,
  headers: xml,
  body: `<?xml version="1.0" encoding="UTF-8"?><CopyObjectResult xmlns="${S3_NS}"><ETag>"c1"</ETag><LastModified>2026-11-27T00:00:00.000Z</LastModified></CopyObjectResult>`,
});

/** The text of the first `<name>` element of an XML request body (the CloudFront requests the bundles send). */
export function xmlText(body: string, name: string): string | undefined {
  return new RegExp(`<${name}>([^<]*)</${name}>`).exec(body)?.[1];
}

/** Every text of `<name>` elements, in order. */
export function xmlTexts(body: string, name: string): string[] {
  return [...body.matchAll(new RegExp(`<${name}>([^<]*)</${name}>`, 'g'))].map((m) => m[1] ?? '');
}

/** GetManagedCertificateDetails: the tenant's CloudFront-managed certificate request. */
export function managedCertificate(details: {
  readonly arn: string;
  readonly status: string;
  readonly domains: readonly string[];
}): StubReply {
  const tokens = details.domains
    .map((d) => `<member><Domain>${escapeXml(d)}</Domain><RedirectTo>validation.cloudfront.net/${escapeXml(d)}</RedirectTo>` +
      `<RedirectFrom>${escapeXml(d)}/.well-known/pki-validation/token.txt</RedirectFrom></member>`)
    .join('');
  const body =
    `<?xml version="1.0" encoding="UTF-8"?><ManagedCertificateDetails xmlns="${CLOUDFRONT_NS}">` +
    `<CertificateArn>${details.arn}</CertificateArn><CertificateStatus>${details.status}</CertificateStatus>` +
    `<ValidationTokenHost>cloudfront</ValidationTokenHost><ValidationTokenDetails>${tokens}</ValidationTokenDetails>` +
    '</ManagedCertificateDetails>';
  return { status: 200, headers: xml, body };
}

/** VerifyDnsConfiguration: CloudFront's own DNS check of a tenant's domain. */
export function dnsConfiguration(domain: string, status: string, reason?: string): StubReply {
  const body =
    `<?xml version="1.0" encoding="UTF-8"?><VerifyDnsConfigurationResult xmlns="${CLOUDFRONT_NS}"><DnsConfigurationList>` +
    `<DnsConfiguration><Domain>${escapeXml(domain)}</Domain><Status>${status}</Status>` +
    `${reason ? `<Reason>${escapeXml(reason)}</Reason>` : ''}</DnsConfiguration></DnsConfigurationList></VerifyDnsConfigurationResult>`;
  return { status: 200, headers: xml, body };
}

/** ACM DescribeCertificate (JSON 1.1) of a certificate that failed validation. */
export function acmFailedCertificate(arn: string, domain: string, failureReason: string): StubReply {
  const body = JSON.stringify({
    Certificate: {
      CertificateArn: arn,
      DomainName: domain,
      Status: 'FAILED',
      FailureReason: failureReason,
      Type: 'AMAZON_ISSUED',
      DomainValidationOptions: [{ DomainName: domain, ValidationStatus: 'FAILED', ValidationMethod: 'HTTP' }],
    },
  });
  return { status: 200, headers: { 'content-type': 'application/x-amz-json-1.1' }, body };
}
