import type { CloudAssembly, ResourceReference, SynthesizedFunction, Template } from '../cdk-out.js';
import { LOCAL_ACCOUNT, pseudoParameters } from '../local-resources.js';
import type { PolicyStatement, ResourcePattern } from './iam-policy.js';

// The policies that decide a function's calls, read from the synthesized templates: the identity
// policies of its execution role (AWS::IAM::Policy and AWS::IAM::ManagedPolicy attached to the role,
// the role's inline Policies) and the resource policies of what it calls (AWS::SQS::QueuePolicy,
// AWS::S3::BucketPolicy). Key policies: no function's call goes to KMS (the tables use AWS-owned
// keys, the queues SSE-SQS), so a kms: call would be an unrecognised one and fail the check.
// Every Resource is resolved as CloudFormation would, to the ARNs of the local resources the
// bundles are given (the same resolution as their environment: test/bundles/support/cdk-out.ts).

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Resource = NonNullable<Template['Resources']>[string];

export interface RolePolicies {
  readonly roleArn: string;
  readonly identity: readonly PolicyStatement[];
  /** AWS managed policies on the role: not in any template, so not evaluated (none today). */
  readonly managedPolicyArns: readonly string[];
}

const asArray = <T>(v: T | T[] | undefined): T[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

/** `Ref`, or the GetAtt attribute, as an ARN: what IAM compares a call's resource with. */
export function arnResolver(
  assembly: CloudAssembly,
  base: (ref: ResourceReference) => string,
): (ref: ResourceReference) => string {
  return (ref) => {
    if (ref.attribute !== 'Arn') return base(ref);
    try {
      return base(ref);
    } catch {
      // Only a name or URL is known locally: build the ARN from it, in the producing stack's region.
      const region = assembly.stacks.get(ref.stack)?.region ?? '';
      const name = base({ ...ref, attribute: 'Ref' });
      switch (ref.type) {
        case 'AWS::DynamoDB::Table':
          return `arn:aws:dynamodb:${region}:${LOCAL_ACCOUNT}:table/${name}`;
        case 'AWS::SQS::Queue':
          return `arn:aws:sqs:${region}:${LOCAL_ACCOUNT}:${new URL(name).pathname.split('/').pop() ?? ''}`;
        case 'AWS::S3::Bucket':
          return `arn:aws:s3:::${name}`;
        default:
          throw new Error(`no local ARN for ${ref.stack}/${ref.path} (${ref.type})`);
      }
    }
  };
}

function statementsOf(
  assembly: CloudAssembly,
  stack: string,
  document: Json | undefined,
  source: string,
  resolve: (ref: ResourceReference) => string,
): PolicyStatement[] {
  const region = assembly.stacks.get(stack)?.region ?? '';
  const resources = (value: Json | undefined): ResourcePattern[] | undefined =>
    value === undefined
      ? undefined
      : asArray(value).map((v) => {
          try {
            return assembly.resolveValue(stack, v, resolve, pseudoParameters(region));
          } catch (error) {
            return { unresolved: `${JSON.stringify(v).slice(0, 160)}: ${(error as Error).message}` };
          }
        });
  const principal = (value: Json | undefined): unknown => {
    if (value === undefined || typeof value === 'string') return value;
    const out: Record<string, unknown> = {};
    for (const [kind, who] of Object.entries(value as Record<string, Json>)) out[kind] = resources(who)?.map((p) => (typeof p === 'string' ? p : '?'));
    return out;
  };
  const statements = asArray((document as { Statement?: Json } | undefined)?.Statement) as Array<Record<string, Json>>;
  return statements.map((s) => ({
    sid: typeof s.Sid === 'string' ? s.Sid : undefined,
    effect: s.Effect === 'Deny' ? 'Deny' : 'Allow',
    action: s.Action === undefined ? undefined : asArray(s.Action).map(String),
    notAction: s.NotAction === undefined ? undefined : asArray(s.NotAction).map(String),
    resource: resources(s.Resource),
    notResource: resources(s.NotResource),
    principal: principal(s.Principal),
    condition: s.Condition as PolicyStatement['condition'],
    source,
  }));
}

const refersTo = (value: Json, logicalId: string) =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && value.Ref === logicalId;

/** The execution role of a function and its identity policies. */
export function rolePoliciesOf(
  assembly: CloudAssembly,
  fn: SynthesizedFunction,
  resolve: (ref: ResourceReference) => string,
): RolePolicies {
  const template = assembly.stacks.get(fn.stack)?.template;
  const resources = template?.Resources ?? {};
  const roleRef = (resources[fn.logicalId]?.Properties?.Role ?? null) as Json;
  const getAtt = (roleRef as { 'Fn::GetAtt'?: Json } | null)?.['Fn::GetAtt'];
  const roleId = Array.isArray(getAtt) ? String(getAtt[0]) : undefined;
  const role: Resource | undefined = roleId ? resources[roleId] : undefined;
  if (!roleId || role?.Type !== 'AWS::IAM::Role') {
    throw new Error(`${fn.stack}/${fn.path}: its Role is not an AWS::IAM::Role of the same stack (${JSON.stringify(roleRef)})`);
  }
  const identity: PolicyStatement[] = [];
  for (const [id, r] of Object.entries(resources)) {
    if (r.Type !== 'AWS::IAM::Policy' && r.Type !== 'AWS::IAM::ManagedPolicy') continue;
    if (!asArray(r.Properties?.Roles).some((v) => refersTo(v, roleId))) continue;
    identity.push(...statementsOf(assembly, fn.stack, r.Properties?.PolicyDocument, `${fn.stack}/${id}`, resolve));
  }
  for (const inline of asArray(role.Properties?.Policies) as Array<Record<string, Json>>) {
    identity.push(...statementsOf(assembly, fn.stack, inline.PolicyDocument, `${fn.stack}/${roleId}/${String(inline.PolicyName)}`, resolve));
  }
  const managedPolicyArns = asArray(role.Properties?.ManagedPolicyArns).map((v) => JSON.stringify(v));
  // Lambda names the role as CloudFormation does; only its ARN's shape matters to resource policies.
  return { roleArn: `arn:aws:iam::${LOCAL_ACCOUNT}:role/${fn.stack}-${roleId}`, identity, managedPolicyArns };
}

/** Every queue and bucket policy of the app: each statement names its own resources, so all can be consulted for any call. */
export function resourcePoliciesOf(
  assembly: CloudAssembly,
  resolve: (ref: ResourceReference) => string,
): PolicyStatement[] {
  const out: PolicyStatement[] = [];
  for (const stack of assembly.stacks.values()) {
    for (const [id, r] of Object.entries(stack.template.Resources ?? {})) {
      if (r.Type !== 'AWS::SQS::QueuePolicy' && r.Type !== 'AWS::S3::BucketPolicy') continue;
      out.push(...statementsOf(assembly, stack.name, r.Properties?.PolicyDocument, `${stack.name}/${id}`, resolve));
    }
  }
  return out;
}
