// IAM policy evaluation for the subset the synthesized templates use: Allow/Deny statements with
// Action/NotAction and Resource/NotResource wildcards, resource policies with a Principal, and the
// condition operators whose keys a call carries here. The order of evaluation is AWS's, within one
// account: an explicit Deny anywhere wins; otherwise an Allow in the role's identity policies, or in
// the resource's policy naming the role, allows; otherwise the call is implicitly denied.
// (IAM User Guide, "Policy evaluation logic" and "IAM JSON policy elements".)

/** A Resource element after CloudFormation resolution: an ARN pattern, or why it could not be resolved locally. */
export type ResourcePattern = string | { readonly unresolved: string };

export interface PolicyStatement {
  readonly sid?: string;
  readonly effect: 'Allow' | 'Deny';
  readonly action?: readonly string[];
  readonly notAction?: readonly string[];
  readonly resource?: readonly ResourcePattern[];
  readonly notResource?: readonly ResourcePattern[];
  /** Present on resource policies only. */
  readonly principal?: unknown;
  readonly condition?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  /** Where it comes from, for messages: `<stack>/<policy logical id>`. */
  readonly source: string;
}

/** One AWS call as IAM authorizes it: `dynamodb:GetItem` on `arn:aws:dynamodb:…:table/T`. */
export interface AuthorizedCall {
  readonly action: string;
  readonly resources: readonly string[];
}

/** What a request carries that conditions may test. Only these keys are evaluated. */
export interface RequestContext {
  readonly principalArn: string;
  readonly principalAccount: string;
  /** Lambda reaches AWS over HTTPS (the stage's loopback endpoints stand in for them). */
  readonly secureTransport: boolean;
  /** `s3:prefix` of an S3 list request (its `prefix` parameter; empty when it has none). */
  readonly s3Prefix?: string;
}

export type Decision =
  | { readonly allowed: true; readonly by: string } |
  { readonly allowed: false; readonly why: string };

/** IAM's wildcards: `*` any run of characters (`/` and `:` included), `?` one character. */
export function wildcardMatches(pattern: string, value: string, ignoreCase = false): boolean {
  const source = pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  return new RegExp(`^${source}$`, ignoreCase ? 'is' : 's').test(value);
}

const actionMatches = (patterns: readonly string[], action: string) =>
  patterns.some((p) => wildcardMatches(p, action, true));

const resourceMatches = (patterns: readonly ResourcePattern[], resource: string) =>
  patterns.some((p) => typeof p === 'string' && wildcardMatches(p, resource));

/** Does the statement's Action (or NotAction) cover the action? */
function coversAction(s: PolicyStatement, action: string): boolean {
  if (s.action) return actionMatches(s.action, action);
  if (s.notAction) return !actionMatches(s.notAction, action);
  return false;
}

function coversResource(s: PolicyStatement, resource: string): boolean {
  if (s.resource) return resourceMatches(s.resource, resource);
  if (s.notResource) return !resourceMatches(s.notResource, resource);
  return false;
}

/** A resource policy's Principal names the role: `*`, `{AWS: "*"}`, or the role's ARN. The account root only delegates to identity policies. */
function namesPrincipal(principal: unknown, context: RequestContext): boolean {
  if (principal === '*') return true;
  if (typeof principal !== 'object' || principal === null) return false;
  const aws = (principal as { AWS?: unknown }).AWS;
  const arns = Array.isArray(aws) ? aws : aws === undefined ? [] : [aws];
  return arns.some((arn) => arn === '*' || arn === context.principalArn);
}

const CONTEXT_KEYS: Record<string, (c: RequestContext) => string> = {
  'aws:securetransport': (c) => String(c.secureTransport),
  'aws:principalarn': (c) => c.principalArn,
  'aws:principalaccount': (c) => c.principalAccount,
  's3:prefix': (c) => c.s3Prefix ?? '',
};

const OPERATORS: Record<string, (actual: string, expected: string) => boolean> = {
  Bool: (a, e) => a === e.toLowerCase(),
  StringEquals: (a, e) => a === e,
  StringNotEquals: (a, e) => a !== e,
  StringLike: (a, e) => wildcardMatches(e, a),
  ArnEquals: (a, e) => a === e,
  ArnLike: (a, e) => wildcardMatches(e, a),
};

/** True, false, or the text of the condition it cannot evaluate here. */
export function conditionHolds(condition: PolicyStatement['condition'], context: RequestContext): boolean | string {
  for (const [operator, tests] of Object.entries(condition ?? {})) {
    const test = OPERATORS[operator];
    for (const [key, expected] of Object.entries(tests)) {
      const read = CONTEXT_KEYS[key.toLowerCase()];
      if (!test || !read) return `${operator} ${key}`;
      const values = (Array.isArray(expected) ? expected : [expected]).map(String);
      // Several values of one key: any may match (AWS), except the negated operators, where none may.
      const holds = operator.includes('Not') ? values.every((v) => test(read(context), v)) : values.some((v) => test(read(context), v));
      if (!holds) return false;
    }
  }
  return true;
}

const label = (s: PolicyStatement) => `${s.source}${s.sid ? ` (${s.sid})` : ''}`;

/**
 * The decision for one action on one resource, given the role's identity statements and the
 * resource policies' statements. A condition that cannot be evaluated never allows, and is named.
 */
export function decide(
  action: string,
  resource: string,
  identity: readonly PolicyStatement[],
  resourcePolicies: readonly PolicyStatement[],
  context: RequestContext,
): Decision {
  const applicable = [
    ...identity.map((s) => ({ s, fromResource: false })),
    ...resourcePolicies.filter((s) => namesPrincipal(s.principal, context)).map((s) => ({ s, fromResource: true })),
  ].filter(({ s }) => coversAction(s, action) && coversResource(s, resource));
  const unevaluated: string[] = [];
  let allowedBy: string | undefined;
  for (const { s } of applicable) {
    const holds = conditionHolds(s.condition, context);
    if (typeof holds === 'string') {
      if (s.effect === 'Deny') return { allowed: false, why: `a Deny in ${label(s)} applies unless its condition ${holds} is false, which this check cannot evaluate` };
      unevaluated.push(`${label(s)} (condition ${holds} not evaluated)`);
      continue;
    }
    if (!holds) continue;
    if (s.effect === 'Deny') return { allowed: false, why: `explicitly denied by ${label(s)}` };
    allowedBy ??= label(s);
  }
  if (allowedBy) return { allowed: true, by: allowedBy };
  const near = identity.filter((s) => s.effect === 'Allow' && coversAction(s, action));
  const unresolved = near.flatMap((s) => (s.resource ?? []).filter((r) => typeof r !== 'string').map((r) => (r as { unresolved: string }).unresolved));
  const hints = [
    ...unevaluated.map((u) => `an Allow with a condition: ${u}`),
    ...(near.length > 0 && unresolved.length === 0 ? [`the role allows ${action} only on ${near.flatMap((s) => s.resource ?? []).join(', ')}`] : []),
    ...unresolved.map((u) => `a Resource of an Allow for ${action} could not be resolved: ${u}`),
  ];
  return { allowed: false, why: `no statement of the role allows it${hints.length ? ` (${hints.join('; ')})` : ''}` };
}

/** Every resource of the call must be allowed (a BatchWriteItem over two tables needs both). */
export function authorize(
  call: AuthorizedCall,
  identity: readonly PolicyStatement[],
  resourcePolicies: readonly PolicyStatement[],
  context: RequestContext,
): Array<{ resource: string; why: string }> {
  return call.resources.flatMap((resource) => {
    const d = decide(call.action, resource, identity, resourcePolicies, context);
    return d.allowed ? [] : [{ resource, why: d.why }];
  });
}
