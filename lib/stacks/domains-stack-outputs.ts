// No aws-cdk-lib here: the operator CLI reads the same names.

/** The stacks' outputs (fixed logical ids), by stack. */
export const DOMAINS_OUTPUTS = {
  edgeZone: {
    hostedZoneId: 'HostedZoneId',
    hostedZoneNameServers: 'HostedZoneNameServers',
  },
  edgeCertificate: {
    wildcardCertificateArn: 'WildcardCertificateArn',
  },
  domainsData: {
    keyValueStoreArn: 'KeyValueStoreArn',
    distributionId: 'DistributionId',
    connectionGroupId: 'ConnectionGroupId',
    platformHost: 'PlatformHost',
    siteBucketName: 'SiteBucketName',
    projectsTableName: 'ProjectsTableName',
    domainsTableName: 'DomainsTableName',
  },
  domains: { stateMachineArn: 'StateMachineArn' },
} as const;
