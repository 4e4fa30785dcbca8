import { Stack, type StackProps } from 'aws-cdk-lib';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { Construct } from 'constructs';
import { CONTROL_STAGE_NAME } from '../constructs/dashboard/control-api.js';
import { Dashboard } from '../constructs/dashboard/dashboard.js';
import { DashboardData } from '../constructs/dashboard/dashboard-data.js';
import type { MessagesApi } from '../constructs/messages/messages-api.js';
import type { MessagesData } from '../constructs/messages/messages-data.js';
import { retainExecutionLogs } from '../constructs/operations/log-retention.js';
import { output } from '../constructs/shared/outputs.js';
import type { DomainsDataStack, DomainsStack } from './domains-stack.js';
import type { PlatformStackProps } from './operations-stack.js';

/** The DashboardData stack's outputs (fixed logical ids). */
export const DASHBOARD_DATA_OUTPUTS = { ownersTableName: 'OwnersTableName' } as const;

export interface DashboardDataStackProps extends StackProps {
  /** The Cognito domain prefix of managed login. @default - see DashboardData */
  readonly domainPrefix?: string;
}

/** Stateful: the owners' user pool, its managed-login domain, the Owners table. Retained. */
export class DashboardDataStack extends Stack {
  readonly dashboard: DashboardData;

  constructor(scope: Construct, id: string, props: DashboardDataStackProps = {}) {
    const { domainPrefix, ...stackProps } = props;
    super(scope, id, stackProps);
    this.dashboard = new DashboardData(this, 'Dashboard', { domainPrefix });
    const { ownersTableName } = DASHBOARD_DATA_OUTPUTS;
    output(this, ownersTableName, this.dashboard.ownersTable.tableName, 'Owners table (Cognito sub -> account)');
  }
}

export interface DashboardStackProps extends PlatformStackProps {
  readonly data: DashboardDataStack;
  readonly messagesData: MessagesData;
  readonly messagesApi: MessagesApi;
  readonly domainsData: DomainsDataStack;
  readonly domains: DomainsStack;
  readonly alarmTopic?: ITopic;
}

/** Stateless: the control API behind Cognito, the app client, and the dashboard's hosting. */
export class DashboardStack extends Stack {
  readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, props: DashboardStackProps) {
    super(scope, id, props);
    this.dashboard = new Dashboard(this, 'Dashboard', {
      config: props.config,
      data: props.data.dashboard,
      messagesTables: props.messagesData.tables,
      usagePlanTargets: props.messagesApi.usagePlanTargets,
      messagesApiUrl: props.messagesApi.api.url,
      projects: props.domainsData.projects,
      edge: props.domainsData.edge,
      domainFlow: props.domains.flow.stateMachine,
      alarmTopic: props.alarmTopic,
    });
    retainExecutionLogs(this, 'ControlExecutionLogs', this.dashboard.api.deploymentStage, CONTROL_STAGE_NAME);
  }
}
