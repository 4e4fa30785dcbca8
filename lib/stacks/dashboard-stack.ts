import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import type * as s3deploy from 'aws-cdk-lib/aws-s3-deployment';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { Construct } from 'constructs';
import type { PlatformConfig } from '../config/index.js';
import { CONTROL_STAGE_NAME } from '../constructs/dashboard/control-api.js';
import { Dashboard } from '../constructs/dashboard/dashboard.js';
import { DashboardData } from '../constructs/dashboard/dashboard-data.js';
import type { MessagesApi } from '../constructs/messages/messages-api.js';
import type { MessagesDataResources } from '../constructs/messages/messages-data.js';
import { retainExecutionLogs } from '../constructs/operations/log-retention.js';
import type { DomainsDataStack, DomainsStack } from './domains-stack.js';

/*
 * The owners' dashboard on AWS: two stacks.
 *
 *   <prefix>-DashboardData (stateful)   the Cognito user pool (owners sign up and sign in), its
 *                                       managed-login domain, the Owners table (sub -> account)
 *   <prefix>-Dashboard     (stateless)  the control API (Cognito authorizer, one
 *                                       Lambda), the app client, the hosting (bucket, CloudFront,
 *                                       the built app and config.json), the 5XX alarm
 *
 * The Dashboard stack references the Data, Api, DomainsData and Domains stacks (tables, the
 * Messages API's usage plans, the edge, the domain flow) and nothing references it.
 */

/** The DashboardData stack's outputs (fixed logical ids). */
export const DASHBOARD_DATA_OUTPUTS = { ownersTableName: 'OwnersTableName' } as const;

export interface DashboardDataStackProps extends StackProps {
  /**
   * The Cognito domain prefix of managed login.
   * @default - `<stack name, lower case>-<account id>` (see DashboardData)
   */
  readonly domainPrefix?: string;
}

/** Stateful: the owners' user pool, its managed-login domain, the Owners table. Retained. */
export class DashboardDataStack extends Stack {
  readonly dashboard: DashboardData;

  constructor(scope: Construct, id: string, props: DashboardDataStackProps = {}) {
    const { domainPrefix, ...stackProps } = props;
    super(scope, id, stackProps);
    this.dashboard = new DashboardData(this, 'Dashboard', { domainPrefix });
    const ownersOutput = new CfnOutput(this, DASHBOARD_DATA_OUTPUTS.ownersTableName, {
      value: this.dashboard.ownersTable.tableName,
      description: 'Owners table (Cognito sub -> account)',
    });
    ownersOutput.overrideLogicalId(DASHBOARD_DATA_OUTPUTS.ownersTableName);
  }
}

export interface DashboardStackProps extends StackProps {
  readonly config: PlatformConfig;
  readonly data: DashboardDataStack;
  /** The Messages tables (DataStack). */
  readonly messagesData: MessagesDataResources;
  /** The Messages API (ApiStack): its usage plans and URL. */
  readonly messagesApi: MessagesApi;
  readonly domainsData: DomainsDataStack;
  readonly domains: DomainsStack;
  /**
   * The control API handler module.
   * @default CONTROL_API_HANDLER.entry
   */
  readonly controlHandlerEntry?: string;
  /**
   * The built app.
   * @default dashboardAppSource() (Vite build of dashboard/ at synth)
   */
  readonly appSource?: s3deploy.ISource;
  /**
   * Where alarms notify.
   * @default - alarms without actions
   */
  readonly alarmTopic?: ITopic;
}

/** Stateless: the control API behind Cognito, the app client, and the dashboard's hosting. */
export class DashboardStack extends Stack {
  readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, props: DashboardStackProps) {
    const {
      config,
      data,
      messagesData,
      messagesApi,
      domainsData,
      domains,
      controlHandlerEntry,
      appSource,
      alarmTopic,
      ...stackProps
    } = props;
    super(scope, id, stackProps);
    this.dashboard = new Dashboard(this, 'Dashboard', {
      config,
      data: data.dashboard,
      messagesTables: messagesData.tables,
      usagePlanTargets: messagesApi.usagePlanTargets,
      messagesApiUrl: messagesApi.api.url,
      projects: domainsData.projects,
      edge: domainsData.edge,
      domainFlow: domains.flow.stateMachine,
      controlHandlerEntry,
      appSource,
      alarmTopic,
    });
    retainExecutionLogs(this, 'ControlExecutionLogs', this.dashboard.api.deploymentStage, CONTROL_STAGE_NAME);
  }
}
