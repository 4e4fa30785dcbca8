import { Fn, Stack } from 'aws-cdk-lib';
import * as route53 from 'aws-cdk-lib/aws-route53';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { Construct } from 'constructs';
import { DomainFlow } from '../constructs/domains/domain-flow.js';
import { CLOUDFRONT_CERTIFICATE_REGION, Edge, EdgeCertificate, PlatformZone } from '../constructs/domains/edge.js';
import { ProjectsData } from '../constructs/domains/projects-data.js';
import { output } from '../constructs/shared/outputs.js';
import { DOMAINS_OUTPUTS } from './domains-stack-outputs.js';
import type { PlatformStackProps } from './operations-stack.js';

/*
 * Projects and custom domains: four stacks (docs/operators/deploy.md). The zone has a stack of its
 * own so that its name servers can be read (and delegated to) while the certificate's stack waits
 * for that delegation. Only the zone and the certificate are in us-east-1 (CloudFront takes ACM
 * certificates from there): with the whole edge there, bucket, distribution and flow would
 * reference each other across regions; this way references go one way, by Fn::GetStackOutput. The
 * edge sits in the data stack: run-time tenants hang off the distribution and connection group.
 */

/** us-east-1: the platform's hosted zone alone, retained; delegate the domain to its name servers (output). */
export class EdgeZoneStack extends Stack {
  readonly platformZone: PlatformZone;

  constructor(scope: Construct, id: string, props: PlatformStackProps) {
    const { config, ...stackProps } = props;
    super(scope, id, { ...stackProps, env: { ...stackProps.env, region: CLOUDFRONT_CERTIFICATE_REGION } });
    this.platformZone = new PlatformZone(this, 'EdgeZone', { domain: config.platform.domain });
    const o = DOMAINS_OUTPUTS.edgeZone;
    const zone = this.platformZone.zone;
    output(this, o.hostedZoneId, zone.hostedZoneId, 'The platform zone (retained: give it as platform.hostedZone to re-create the environment)');
    output(
      this,
      o.hostedZoneNameServers,
      Fn.join(',', zone.hostedZoneNameServers ?? []),
      'Delegate the platform domain to these name servers at the registrar (the certificate validates once they answer)',
    );
  }
}

export interface EdgeCertificateStackProps extends PlatformStackProps {
  /** The zone the certificate validates in. @default - the zone named by `config.platform.hostedZone` */
  readonly zone?: route53.IHostedZone;
}

/** us-east-1: the wildcard certificate for CloudFront, validated in the platform zone. */
export class EdgeCertificateStack extends Stack {
  readonly edgeZone: EdgeCertificate;

  constructor(scope: Construct, id: string, props: EdgeCertificateStackProps) {
    const { config, zone, ...stackProps } = props;
    super(scope, id, {
      ...stackProps,
      env: { ...stackProps.env, region: CLOUDFRONT_CERTIFICATE_REGION },
      crossRegionReferences: true,
    });
    const existing = config.platform.hostedZone;
    let platformZone = zone;
    if (!platformZone) {
      if (!existing) throw new Error(`${id}: give the platform zone (the EdgeZone stack's) or set platform.hostedZone to an existing zone`);
      platformZone = route53.HostedZone.fromHostedZoneAttributes(this, 'ExistingZone', { hostedZoneId: existing.id, zoneName: existing.name });
    }
    this.edgeZone = new EdgeCertificate(this, 'EdgeZone', { domain: config.platform.domain, zone: platformZone });
    const o = DOMAINS_OUTPUTS.edgeCertificate;
    output(this, o.wildcardCertificateArn, this.edgeZone.certificate.certificateArn, `*.${config.platform.domain} and ${config.platform.domain} (us-east-1)`);
  }
}

export interface DomainsDataStackProps extends PlatformStackProps {
  /** The zone and certificate from the EdgeCertificateStack (us-east-1). */
  readonly edgeZone: EdgeCertificate;
}

/** Stateful: projects, domains, the sites and the edge they are served from. Deployed after EdgeCertificate, changed rarely. */
export class DomainsDataStack extends Stack {
  readonly projects: ProjectsData;
  readonly edge: Edge;

  constructor(scope: Construct, id: string, props: DomainsDataStackProps) {
    const { config, edgeZone, ...stackProps } = props;
    super(scope, id, { ...stackProps, crossRegionReferences: true });
    this.projects = new ProjectsData(this, 'Projects');
    this.edge = new Edge(this, 'Edge', {
      domain: config.platform.domain,
      data: this.projects,
      zone: edgeZone.zone,
      certificate: edgeZone.certificate,
    });
    const o = DOMAINS_OUTPUTS.domainsData;
    output(this, o.keyValueStoreArn, this.projects.keyValueStore.keyValueStoreArn, 'KeyValueStore of the viewer-request function (host -> deploy/redirect/removed)');
    output(this, o.distributionId, this.edge.distributionId, 'Multi-tenant distribution of the project sites');
    output(this, o.connectionGroupId, this.edge.connectionGroupId, 'Connection group of every tenant (routing endpoint = target of the *.edge. record)');
    output(this, o.platformHost, this.edge.platformHost, 'Parent of the per-domain targets <token>.edge.<domain> customers point their CNAME/ALIAS at');
    output(this, o.siteBucketName, this.projects.siteBucket.bucketName, 'Deploys: projects/<projectId>/deploys/<deployId>/');
    output(this, o.projectsTableName, this.projects.tables.projects.tableName, 'Projects table');
    output(this, o.domainsTableName, this.projects.tables.domains.tableName, 'Custom domains table');
  }
}

export interface DomainsStackProps extends PlatformStackProps {
  readonly data: DomainsDataStack;
  /** @default DOMAIN_HANDLERS.flowTasks.entry */
  readonly flowTasksEntry?: string;
  readonly alarmTopic?: ITopic;
}

/** Stateless: the custom-domain flow (state machine, seven task functions, alarms). */
export class DomainsStack extends Stack {
  readonly flow: DomainFlow;

  constructor(scope: Construct, id: string, props: DomainsStackProps) {
    const { config, data, flowTasksEntry, alarmTopic, ...stackProps } = props;
    super(scope, id, stackProps);
    this.flow = new DomainFlow(this, 'Flow', {
      config,
      data: data.projects,
      edge: data.edge,
      flowTasksEntry,
      alarmTopic,
    });
  }
}
