import { Stack } from 'aws-cdk-lib';
import type * as apigw from 'aws-cdk-lib/aws-apigateway';
import * as wafv2 from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import type { PlatformConfig } from '../../config/index.js';
import {
  FIREWALL_BLOCK_RESPONSE,
  FIREWALL_MANAGED_GROUPS,
  FIREWALL_RATE_RULES,
  FIREWALL_WINDOW_SECONDS,
  firewallLimit,
  WELL_FORMED_BEARER,
} from '../../../contracts/firewall-rules.js';

export interface ApiFirewallProps {
  readonly config: PlatformConfig;
  /** The REST API stage the web ACL is associated with. */
  readonly stage: apigw.Stage;
}

/** The custom response body key of the rate rules' block action. */
const RATE_LIMITED_BODY = 'RateLimited';

/** A WAF web ACL on the API stage (contracts/firewall-rules.ts): a blocked flood costs no Lambda concurrency. */
export class ApiFirewall extends Construct {
  readonly webAcl: wafv2.CfnWebACL;

  constructor(scope: Construct, id: string, props: ApiFirewallProps) {
    super(scope, id);
    const stack = Stack.of(this);
    const metricPrefix = `${stack.stackName}-messages`.replace(/[^A-Za-z0-9_-]/g, '');
    const visibility = (name: string): wafv2.CfnWebACL.VisibilityConfigProperty => ({
      cloudWatchMetricsEnabled: true,
      metricName: `${metricPrefix}-${name}`.slice(0, 128),
      sampledRequestsEnabled: true,
    });

    const withoutWellFormedKey = {
      notStatement: {
        statement: {
          regexMatchStatement: {
            regexString: WELL_FORMED_BEARER.source,
            // singleHeader is untyped in the L1, so CloudFormation's own casing: Name.
            fieldToMatch: { singleHeader: { Name: 'authorization' } },
            textTransformations: [{ priority: 0, type: 'LOWERCASE' }],
          },
        },
      },
    };
    const rateRules: wafv2.CfnWebACL.RuleProperty[] = FIREWALL_RATE_RULES.map((rule) => ({
      name: rule.name,
      priority: rule.priority,
      action: {
        block: {
          customResponse: {
            responseCode: FIREWALL_BLOCK_RESPONSE.statusCode,
            customResponseBodyKey: RATE_LIMITED_BODY,
            responseHeaders: Object.entries(FIREWALL_BLOCK_RESPONSE.headers).map(([name, value]) => ({ name, value })),
          },
        },
      },
      statement: {
        rateBasedStatement: {
          limit: firewallLimit(rule, props.config.protection.waf),
          evaluationWindowSec: FIREWALL_WINDOW_SECONDS,
          aggregateKeyType: 'IP',
          scopeDownStatement: rule.scope === 'withoutWellFormedKey' ? withoutWellFormedKey : undefined,
        },
      },
      visibilityConfig: visibility(rule.name),
    }));

    const managedRules: wafv2.CfnWebACL.RuleProperty[] = FIREWALL_MANAGED_GROUPS.map((group) => ({
      name: group.name,
      priority: group.priority,
      overrideAction: { none: {} },
      statement: {
        managedRuleGroupStatement: {
          vendorName: 'AWS',
          name: group.name,
          ...(group.countOnly.length
            ? { ruleActionOverrides: group.countOnly.map((name) => ({ name, actionToUse: { count: {} } })) }
            : {}),
        },
      },
      visibilityConfig: visibility(group.name),
    }));

    this.webAcl = new wafv2.CfnWebACL(this, 'WebAcl', {
      scope: 'REGIONAL',
      description: 'Messages API: per-IP rate rules for anonymous and all requests, IP reputation, known bad inputs',
      defaultAction: { allow: {} },
      customResponseBodies: {
        [RATE_LIMITED_BODY]: { contentType: 'APPLICATION_JSON', content: FIREWALL_BLOCK_RESPONSE.body },
      },
      rules: [...rateRules, ...managedRules],
      visibilityConfig: visibility('WebAcl'),
    });

    const association = new wafv2.CfnWebACLAssociation(this, 'StageAssociation', {
      resourceArn: props.stage.stageArn,
      webAclArn: this.webAcl.attrArn,
    });
    // The stage must exist before it can be associated.
    association.node.addDependency(props.stage);
  }
}
