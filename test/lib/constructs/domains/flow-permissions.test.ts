import { beforeAll, describe, expect, it } from 'vitest';
import { type DomainFlow, FLOW_TASKS, type FlowTask } from '../../../../lib/constructs/domains/domain-flow.js';
import { DESCRIBES_CERTIFICATES, KVS_ACTIONS, TENANT_ACTIONS } from '../../../../lib/constructs/domains/flow-permissions.js';
import type { DomainsDataStack } from '../../../../lib/stacks/domains-stack.js';
import { domainFlowInItsStack, type DomainFlowInItsStack, type Json, list } from './domain-flow.fixture.js';

// DomainFlow in the Domains stack: what each task's role may do (lib/constructs/domains/flow-permissions.ts).

describe('DomainFlow (in the Domains stack)', () => {
  let dataStack: DomainsDataStack;
  let flow: DomainFlow;
  let resources: Json;
  let idOf: DomainFlowInItsStack['idOf'];
  let statementsOf: DomainFlowInItsStack['statementsOf'];
  let source: DomainFlowInItsStack['source'];
  let arnOf: DomainFlowInItsStack['arnOf'];

  beforeAll(() => {
    ({ dataStack, flow, resources, idOf, statementsOf, source, arnOf } = domainFlowInItsStack());
  });

  describe('least privilege', () => {
    const tenantArns = { 'Fn::Join': ['', ['arn:aws:cloudfront::', { Ref: 'AWS::AccountId' }, ':distribution-tenant/*']] };
    const managedCertificates = { 'Fn::Join': ['', ['arn:aws:acm:us-east-1:', { Ref: 'AWS::AccountId' }, ':certificate/*']] };
    const xray = ['xray:PutTelemetryRecords', 'xray:PutTraceSegments'];

    /** Every (action, resource) pair a task's role is allowed, resources followed to the DomainsData stack. */
    const grantsOf = (task: FlowTask): string[] =>
      statementsOf(task)
        .flatMap((s) => list(s.Action).flatMap((a) => list(s.Resource).map((r) => `${a} ${JSON.stringify(source(r))}`)))
        .sort();
    const pairs = (actions: readonly string[], resource: unknown) => actions.map((a) => `${a} ${JSON.stringify(resource)}`);

    it('grants each task exactly the actions it calls, on exactly those resources', () => {
      const { tables, keyValueStore } = dataStack.projects;
      const projects = arnOf(tables.projects);
      const domains = arnOf(tables.domains);
      const kvs = arnOf(keyValueStore);
      const common = (task: FlowTask) => [
        ...pairs(['logs:CreateLogStream', 'logs:PutLogEvents'], { 'Fn::GetAtt': [idOf(flow.functions[task].logGroup), 'Arn'] }),
        ...pairs(xray, '*'),
      ];
      const verification = (task: FlowTask) => [
        ...common(task),
        ...pairs(['dynamodb:GetItem', 'dynamodb:UpdateItem'], domains),
        ...pairs(['dynamodb:GetItem'], projects),
      ];
      const expected: Record<FlowTask, string[]> = {
        verifyDns: verification('verifyDns'),
        requestCertificate: [
          ...verification('requestCertificate'),
          ...pairs(TENANT_ACTIONS.requestCertificate, tenantArns),
          ...pairs(['acm:DescribeCertificate'], managedCertificates),
          ...pairs(['cloudfront:CreateDistributionTenant', 'acm:RequestCertificate'], '*'),
        ],
        checkCertificate: [
          ...verification('checkCertificate'),
          ...pairs(TENANT_ACTIONS.checkCertificate, tenantArns),
          ...pairs(['acm:DescribeCertificate'], managedCertificates),
        ],
        activate: [...verification('activate'), ...pairs(KVS_ACTIONS.write, kvs)],
        diagnose: verification('diagnose'),
        releaseTenant: [
          ...common('releaseTenant'),
          ...pairs(['dynamodb:GetItem'], domains),
          ...pairs(TENANT_ACTIONS.releaseTenant, tenantArns),
          ...pairs(['acm:DescribeCertificate'], managedCertificates),
          ...pairs(KVS_ACTIONS.forgetRefusal, kvs),
        ],
        checkDrift: [
          ...common('checkDrift'),
          ...pairs(['dynamodb:Scan', 'dynamodb:GetItem', 'dynamodb:UpdateItem'], domains),
          ...pairs(['dynamodb:GetItem', 'dynamodb:UpdateItem'], projects),
          ...pairs(KVS_ACTIONS.write, kvs),
          ...pairs(['states:StartExecution'], { Ref: idOf(flow.stateMachine) }),
        ],
      };
      for (const task of FLOW_TASKS) expect(grantsOf(task), task).toEqual(expected[task].sort());
    });

    it('lists the tenant and certificate actions the resource schema and API references name, per task', () => {
      // What a create or update with a managed certificate needs (AWS::CloudFront::DistributionTenant
      // handlers), besides the tenant calls themselves; no web ACL is passed, so no wafv2:GetWebACL.
      expect([...TENANT_ACTIONS.requestCertificate].sort()).toEqual([
        'cloudfront:GetDistributionTenant',
        'cloudfront:GetManagedCertificateDetails',
        'cloudfront:TagResource',
        'cloudfront:UpdateDistributionTenant',
        'cloudfront:VerifyDnsConfiguration',
      ]);
      expect([...TENANT_ACTIONS.releaseTenant].sort()).toEqual([
        'cloudfront:DeleteDistributionTenant',
        'cloudfront:GetDistributionTenant',
        'cloudfront:UpdateDistributionTenant',
      ]);
      expect([...DESCRIBES_CERTIFICATES].sort()).toEqual(['checkCertificate', 'releaseTenant', 'requestCertificate']);
      expect([...KVS_ACTIONS.forgetRefusal].sort()).toEqual([
        'cloudfront-keyvaluestore:DeleteKey',
        'cloudfront-keyvaluestore:DescribeKeyValueStore',
        'cloudfront-keyvaluestore:GetKey',
      ]);
      const all = FLOW_TASKS.flatMap((t) => statementsOf(t).flatMap((s) => list(s.Action)));
      expect(all.filter((a) => a.startsWith('wafv2:') || a === 'cloudfront:GetVpcOrigin')).toEqual([]);
    });

    it('grants no wildcard action, and Resource "*" only to X-Ray and to tenant creation, in its own policy of RequestCertificate', () => {
      for (const task of FLOW_TASKS) {
        for (const s of statementsOf(task)) {
          for (const action of list(s.Action)) expect(action, task).not.toMatch(/\*/);
          if (!list(s.Resource).includes('*')) continue;
          const actions = list(s.Action).sort();
          if (actions.every((a) => a.startsWith('xray:'))) expect(actions, task).toEqual(xray);
          else expect(task).toBe('requestCertificate');
        }
      }
      expect(resources[idOf(flow.tenantCreationPolicy)].Properties.Roles).toEqual([
        { Ref: idOf(flow.functions.requestCertificate.role) },
      ]);
      expect(resources[idOf(flow.tenantCreationPolicy)].Properties.PolicyDocument.Statement).toEqual([
        {
          Sid: 'CreateProjectTenants',
          Effect: 'Allow',
          Action: ['acm:RequestCertificate', 'cloudfront:CreateDistributionTenant'],
          Resource: '*',
        },
      ]);
    });

    it('grants no Route 53, S3 or CloudWatch actions (metrics go out as EMF in the log)', () => {
      const all = FLOW_TASKS.flatMap((t) => statementsOf(t).flatMap((s) => list(s.Action)));
      expect(all.filter((a) => /^(route53|s3|cloudwatch):/.test(a))).toEqual([]);
    });

    it('lets the drift task start releases through a policy of its own (the role\'s default policy would make a cycle with the state machine)', () => {
      const policy = resources[idOf(flow.startReleasePolicy)].Properties;
      expect(policy.Roles).toEqual([{ Ref: idOf(flow.functions.checkDrift.role) }]);
      expect(policy.PolicyDocument.Statement).toEqual([
        { Sid: 'StartReleaseOfDetachedDomains', Effect: 'Allow', Action: 'states:StartExecution', Resource: { Ref: idOf(flow.stateMachine) } },
      ]);
    });
  });
});
