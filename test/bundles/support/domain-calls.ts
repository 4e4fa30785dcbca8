import { expect } from 'vitest';
import { domainFlowExecutionName } from '../../../contracts/domain-flow.js';
import type { ProjectRecord } from '../../../lambda/projects/project.js';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { sfnStarted, type TenantFields } from './aws-wire.js';
import { controlCall, ownerClaims } from './control-calls.js';
import { LOCAL_CREDENTIALS, LOCAL_IDS } from './local-resources.js';
import type { BundleStage } from './stage.js';

/** A domain as the control function answers its addition: its own target and the records to set. */
export interface AddedDomain {
  readonly domain: string;
  readonly target: string;
  readonly records: ReadonlyArray<{ readonly type: string; readonly fqdn: string; readonly value: string }>;
}

/**
 * Custom domains of the demo Pro account's deployed project (`demoProject: true`), through the
 * control function's bundle as its owner: add, point the DNS (the stage's dns2 server), verify; the
 * StartExecution the bundle sends reaches the stub, and its input is what the flow then runs with.
 */
export class DemoProjectDomains {
  readonly owner = ownerClaims('pro@demo.local');

  private constructor(
    private readonly stage: BundleStage,
    readonly project: ProjectRecord,
    /** The domain flow's ARN, where the control function must start executions (DOMAIN_FLOW_ARN). */
    private readonly stateMachineArn: string,
  ) {}

  static async of(stage: BundleStage, stateMachineArn: string): Promise<DemoProjectDomains> {
    const [view] = await stage.platform.projects.listProjects('acct_demo_pro');
    const stored = await stage.documents.send(
      new GetCommand({ TableName: stage.platform.tables.projects, Key: { projectId: view?.projectId } }),
    );
    if (!stored.Item) throw new Error('the demo Pro account has no project: start the stage with demoProject: true');
    return new DemoProjectDomains(stage, stored.Item as ProjectRecord, stateMachineArn);
  }

  /** The control API path of the project's domains. */
  get base(): string {
    return `/accounts/acct_demo_pro/projects/${this.project.projectId}/domains`;
  }

  /** The domain's record in dynalite, as the bundles left it. */
  async record(domain: string): Promise<Record<string, unknown> | undefined> {
    const out = await this.stage.documents.send(
      new GetCommand({ TableName: this.stage.platform.tables.domains, Key: { domain }, ConsistentRead: true }),
    );
    return out.Item;
  }

  /** The distribution tenant CloudFront would hold for the domain (for the stub's answers). */
  tenant(domain: string, fields: Partial<TenantFields> = {}): TenantFields {
    return {
      id: `dt_${domain.replace(/\W/g, '')}`,
      name: `domain-${domain}`,
      distributionId: LOCAL_IDS.distributionId,
      connectionGroupId: LOCAL_IDS.connectionGroupId,
      domains: [{ domain, status: 'inactive' }],
      enabled: true,
      projectId: this.project.projectId,
      etag: 'E1',
      ...fields,
    };
  }

  /** The control bundle's StartExecution, as the stub received it: the execution input the flow runs with. */
  startedExecution(name: string): Record<string, unknown> {
    const [start] = this.stage.stub.take('states');
    expect(start).toMatchObject({ method: 'POST', path: '/', region: 'eu-west-1', accessKeyId: LOCAL_CREDENTIALS.AWS_ACCESS_KEY_ID });
    expect(start?.headers['x-amz-target']).toBe('AWSStepFunctions.StartExecution');
    const body = JSON.parse(start?.body ?? '{}') as { stateMachineArn: string; name: string; input: string };
    // DOMAIN_FLOW_ARN: the Domains stack's output, through Fn::GetStackOutput.
    expect(body.stateMachineArn).toBe(this.stateMachineArn);
    expect(body.name).toBe(name);
    return JSON.parse(body.input) as Record<string, unknown>;
  }

  /** Adds the domain through the control bundle: it answers with the domain's own target and the records to set. */
  async add(domain: string): Promise<AddedDomain> {
    const added = await controlCall(this.stage, this.owner, 'POST', this.base, { domain });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    const view = added.body.domain as AddedDomain;
    expect(view.target).toMatch(/^[a-z2-7]{26}\.edge\.platform\.example\.com$/);
    return view;
  }

  /** Sets the records the control function asked for at the stage's DNS server, as the owner would. */
  pointDns(added: AddedDomain): void {
    for (const r of added.records) {
      if (r.type === 'CNAME') this.stage.dns.set(r.fqdn, { CNAME: r.value });
      else if (r.type === 'TXT') this.stage.dns.set(r.fqdn, { TXT: [r.value] });
      else throw new Error(`${added.domain}: the stage sets no ${r.type} record (use a subdomain)`);
    }
  }

  /** Presses Verify through the control bundle; returns the execution input it started (attempt 1). */
  async verify(domain: string): Promise<Record<string, unknown>> {
    this.stage.stub.reply('states', sfnStarted(`${this.stateMachineArn.replace(':stateMachine:', ':execution:')}:${domain}-1`));
    const verified = await controlCall(this.stage, this.owner, 'POST', `${this.base}/${domain}/verify`);
    expect(verified.status).toBe(202);
    expect(verified.body).toMatchObject({ domain, state: 'verifying' });
    const input = this.startedExecution(domainFlowExecutionName(domain, 1));
    expect(input).toEqual({ domain, attempt: 1, pollSeconds: 30, watchdogSeconds: 1800 });
    return input;
  }
}
