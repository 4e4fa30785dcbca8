// Shared by the CloudFront tenant adapter tests: the mocked clients (aws-sdk-client-mock), a
// project, tenants and managed certificates as CloudFront returns them, and the commands sent.
import { ACMClient } from '@aws-sdk/client-acm';
import {
  CloudFrontClient,
  CreateDistributionTenantCommand,
  DeleteDistributionTenantCommand,
  type DistributionTenant,
  EntityNotFound,
  GetDistributionTenantCommand,
  GetManagedCertificateDetailsCommand,
  type ManagedCertificateDetails,
  PreconditionFailed,
  UpdateDistributionTenantCommand,
  VerifyDnsConfigurationCommand,
} from '@aws-sdk/client-cloudfront';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach } from 'vitest';
import {
  CloudFrontCertificateAuthority,
  type CloudFrontCertificateAuthorityOptions,
} from '../../../lambda/domains/cloudfront-certificate-authority.js';
import type { DomainRecord } from '../../../lambda/domains/domain-record.js';
import type { ProjectRecord } from '../../../lambda/projects/project.js';

export const cloudfront = mockClient(CloudFrontClient);
export const acm = mockClient(ACMClient);
export const meta = { $metadata: {} };

export const DIST = 'E1XNX8R2GOAABC';
export const GROUP = 'cg_2whCJoXMYCjHcxaLGrkllvyABC';
export const TENANT_ID = 'dt_2yMvQgam3QkJo2z54FDl91dk1AB';
export const CERT_ARN = 'arn:aws:acm:us-east-1:123456789012:certificate/11111111-2222-3333-4444-555555555555';
export const MCR = { ValidationTokenHost: 'cloudfront' };

export const project: ProjectRecord = {
  projectId: 'prj_1',
  accountId: 'acc_1',
  slug: 'shop',
  name: 'Shop',
  deployState: 'succeeded',
  liveDeployId: 'dep_1',
  domains: { primary: 'shop.platform.test', redirects: [] },
  createdAt: '2026-01-01T00:00:00.000Z',
};

export const record = (domain: string): DomainRecord => ({
  domain,
  display: domain,
  projectId: 'prj_1',
  accountId: 'acc_1',
  apex: false,
  state: 'issuing_certificate',
  records: [],
  target: 'own7target.edge.platform.test',
  ownershipToken: 'tok123',
  attempt: 1,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
});

export const WWW = record('www.example.com');

export const tenant = (
  domains: Array<[string, 'active' | 'inactive']>,
  extra: Partial<DistributionTenant> = {},
): { DistributionTenant: DistributionTenant; ETag: string } => ({
  DistributionTenant: {
    Id: TENANT_ID,
    DistributionId: DIST,
    Name: 'domain-www.example.com',
    Domains: domains.map(([Domain, Status]) => ({ Domain, Status })),
    ConnectionGroupId: GROUP,
    Enabled: true,
    Status: 'Deployed',
    Tags: { Items: [{ Key: 'projectId', Value: 'prj_1' }] },
    ...extra,
  },
  ETag: 'E1',
});

export const certificate = (status: ManagedCertificateDetails['CertificateStatus'], domains: string[], arn = CERT_ARN) => ({
  ManagedCertificateDetails: {
    CertificateArn: arn,
    CertificateStatus: status,
    ValidationTokenHost: 'cloudfront' as const,
    ValidationTokenDetails: domains.map((Domain) => ({ Domain })),
  },
});

export const notFound = () => new EntityNotFound({ message: 'The specified distribution tenant does not exist', ...meta });
export const stale = () => new PreconditionFailed({ message: 'The If-Match version is missing or not valid', ...meta });

export const COMMANDS = {
  GetDistributionTenant: GetDistributionTenantCommand,
  CreateDistributionTenant: CreateDistributionTenantCommand,
  UpdateDistributionTenant: UpdateDistributionTenantCommand,
  DeleteDistributionTenant: DeleteDistributionTenantCommand,
  GetManagedCertificateDetails: GetManagedCertificateDetailsCommand,
  VerifyDnsConfiguration: VerifyDnsConfigurationCommand,
} as const;

/** Every CloudFront command sent, in order, as [operation, input]. */
export function sent(): Array<[string, unknown]> {
  return cloudfront.calls().map((call) => {
    const command = call.args[0];
    const name = Object.entries(COMMANDS).find(([, type]) => command instanceof type)?.[0] ?? 'unknown';
    return [name, command.input];
  });
}
export const names = () => sent().map(([name]) => name);

/** Backoff sleeps of the adapter under test, in order (cleared before each test). */
export const delays: number[] = [];
export const authority = (options: Partial<CloudFrontCertificateAuthorityOptions> = {}) =>
  new CloudFrontCertificateAuthority({
    cloudfront: new CloudFrontClient({ region: 'us-east-1', maxAttempts: 1 }),
    acm: new ACMClient({ region: 'us-east-1', maxAttempts: 1 }),
    distributionId: DIST,
    connectionGroupId: GROUP,
    pacing: {
      sleep: async (ms) => {
        delays.push(ms);
      },
      random: () => 0.5,
    },
    ...options,
  });

beforeEach(() => {
  cloudfront.reset();
  acm.reset();
  delays.length = 0;
  cloudfront.on(UpdateDistributionTenantCommand).resolves({ ETag: 'E2' });
  cloudfront.on(CreateDistributionTenantCommand).resolves({ ETag: 'E1' });
  cloudfront.on(DeleteDistributionTenantCommand).resolves({});
});
