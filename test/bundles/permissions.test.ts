import { describe, expect, it } from 'vitest';
import { recogniseCall, type WireRequest } from './support/permissions/aws-call.js';
import { authorize, decide, type PolicyStatement, wildcardMatches } from './support/permissions/iam-policy.js';

// The permission check of the bundle stage (test/bundles/support/permissions/): its reading of the
// wire and its IAM evaluation, on the shapes the templates use. The stage itself runs it on every
// call of every bundle (BundleStage.stop fails with the calls a role does not allow).

const TABLE = 'arn:aws:dynamodb:eu-west-1:000000000000:table/Domains';
const context = { principalArn: 'arn:aws:iam::000000000000:role/Stack-Role', principalAccount: '000000000000', secureTransport: true };
const allow = (action: string[], resource: string[], extra: Partial<PolicyStatement> = {}): PolicyStatement =>
  ({ effect: 'Allow', action, resource, source: 'Stack/Policy', ...extra });

const wire = (request: Partial<WireRequest> & Pick<WireRequest, 'service' | 'method' | 'path'>): WireRequest =>
  ({ region: 'eu-west-1', query: new URLSearchParams(), target: undefined, body: '', ...request });

describe('IAM evaluation', () => {
  it('matches actions case-insensitively with wildcards, resources case-sensitively', () => {
    expect(wildcardMatches('dynamodb:Get*', 'dynamodb:GetItem', true)).toBe(true);
    expect(wildcardMatches('dynamodb:Get*', 'dynamodb:Query', true)).toBe(false);
    expect(wildcardMatches(`${TABLE}/index/*`, `${TABLE}/index/byProject`)).toBe(true);
    expect(wildcardMatches('arn:aws:acm:us-east-1:000000000000:certificate/*', 'arn:aws:ACM:us-east-1:000000000000:certificate/x')).toBe(false);
  });

  it('allows only what a statement names: the table is not its indexes', () => {
    const identity = [allow(['dynamodb:GetItem', 'dynamodb:Query'], [TABLE])];
    expect(decide('dynamodb:GetItem', TABLE, identity, [], context)).toEqual({ allowed: true, by: 'Stack/Policy' });
    const query = decide('dynamodb:Query', `${TABLE}/index/byProject`, identity, [], context);
    expect(query.allowed).toBe(false);
    expect(query).toMatchObject({ why: expect.stringContaining(`allows dynamodb:Query only on ${TABLE}`) as unknown });
    expect(decide('dynamodb:PutItem', TABLE, identity, [], context).allowed).toBe(false);
  });

  it('lets an explicit Deny win, and evaluates aws:SecureTransport', () => {
    const identity = [allow(['sqs:*'], ['*'])];
    const insecureOnly: PolicyStatement = {
      effect: 'Deny', action: ['sqs:*'], resource: ['*'], principal: { AWS: ['*'] }, condition: { Bool: { 'aws:SecureTransport': 'false' } }, source: 'Data/QueuePolicy',
    };
    expect(decide('sqs:SendMessage', 'arn:aws:sqs:eu-west-1:000000000000:messages', identity, [insecureOnly], context).allowed).toBe(true);
    const overHttp = decide('sqs:SendMessage', 'arn:aws:sqs:eu-west-1:000000000000:messages', identity, [insecureOnly], { ...context, secureTransport: false });
    expect(overHttp).toEqual({ allowed: false, why: 'explicitly denied by Data/QueuePolicy' });
  });

  it('says so when a condition cannot be evaluated: an Allow does not count, a Deny refuses', () => {
    const conditional = allow(['s3:PutObject'], ['arn:aws:s3:::b/*'], { condition: { StringEquals: { 's3:x-amz-acl': 'private' } } });
    const d = decide('s3:PutObject', 'arn:aws:s3:::b/k', [conditional], [], context);
    expect(d).toMatchObject({ allowed: false, why: expect.stringContaining('condition StringEquals s3:x-amz-acl not evaluated') as unknown });
    const deny: PolicyStatement = { effect: 'Deny', action: ['s3:*'], resource: ['*'], principal: '*', condition: { IpAddress: { 'aws:SourceIp': '10.0.0.0/8' } }, source: 'B/Policy' };
    expect(decide('s3:PutObject', 'arn:aws:s3:::b/k', [allow(['s3:*'], ['*'])], [deny], context))
      .toMatchObject({ allowed: false, why: expect.stringContaining('cannot evaluate') as unknown });
  });

  it('needs every resource of a call: a batch over two tables needs both', () => {
    const identity = [allow(['dynamodb:BatchWriteItem'], [TABLE])];
    const other = 'arn:aws:dynamodb:eu-west-1:000000000000:table/Projects';
    expect(authorize({ action: 'dynamodb:BatchWriteItem', resources: [TABLE, other] }, identity, [], context).map((d) => d.resource)).toEqual([other]);
  });
});

describe('reading a call off the wire', () => {
  it('JSON protocols: the operation of X-Amz-Target and the tables, queue or state machine of the body', () => {
    expect(recogniseCall(wire({
      service: 'dynamodb', method: 'POST', path: '/', target: 'DynamoDB_20120810.Query',
      body: JSON.stringify({ TableName: 'Domains', IndexName: 'byProject' }),
    }))).toEqual({ operation: 'Query', action: 'dynamodb:Query', resources: [`${TABLE}/index/byProject`] });
    expect(recogniseCall(wire({
      service: 'dynamodb', method: 'POST', path: '/', target: 'DynamoDB_20120810.BatchWriteItem',
      body: JSON.stringify({ RequestItems: { Messages: [], Other: [] } }),
    }))).toMatchObject({ resources: ['arn:aws:dynamodb:eu-west-1:000000000000:table/Messages', 'arn:aws:dynamodb:eu-west-1:000000000000:table/Other'] });
    // SQS authorizes its batch operations with the single ones' actions.
    expect(recogniseCall(wire({
      service: 'sqs', method: 'POST', path: '/', target: 'AmazonSQS.SendMessageBatch',
      body: JSON.stringify({ QueueUrl: 'http://127.0.0.1:9/000000000000/messages', Entries: [] }),
    }))).toEqual({ operation: 'SendMessageBatch', action: 'sqs:SendMessage', resources: ['arn:aws:sqs:eu-west-1:000000000000:messages'] });
  });

  it('REST protocols: the route of the SDK\'s operation schemas, and the ARN of what it acts on', () => {
    expect(recogniseCall(wire({ service: 'cloudfront', method: 'GET', path: '/2020-05-31/distribution-tenant/dt_1' })))
      .toEqual({ operation: 'GetDistributionTenant', action: 'cloudfront:GetDistributionTenant', resources: ['arn:aws:cloudfront::000000000000:distribution-tenant/dt_1'] });
    expect(recogniseCall(wire({ service: 'cloudfront', method: 'POST', path: '/2020-05-31/distribution-tenant' })))
      .toMatchObject({ action: 'cloudfront:CreateDistributionTenant', resources: ['arn:aws:cloudfront::000000000000:distribution-tenant/*'] });
    const kvs = 'arn:aws:cloudfront::000000000000:key-value-store/abc';
    expect(recogniseCall(wire({ service: 'cloudfront-keyvaluestore', method: 'PUT', path: `/key-value-stores/${encodeURIComponent(kvs)}/keys/www.example.com` })))
      .toEqual({ operation: 'PutKey', action: 'cloudfront-keyvaluestore:PutKey', resources: [kvs] });
    expect(recogniseCall(wire({ service: 'apigateway', method: 'POST', path: '/usageplans/up1/keys' })))
      .toEqual({ operation: 'CreateUsagePlanKey', action: 'apigateway:POST', resources: ['arn:aws:apigateway:eu-west-1::/usageplans/up1/keys'] });
    expect(recogniseCall(wire({ service: 's3', method: 'PUT', path: '/sites/projects/p/index.html', query: new URLSearchParams('x-id=PutObject') })))
      .toEqual({ operation: 'PutObject', action: 's3:PutObject', resources: ['arn:aws:s3:::sites/projects/p/index.html'] });
  });

  it('names what it cannot read, so an unknown call fails the check instead of passing it', () => {
    expect(recogniseCall(wire({ service: 'cloudfront', method: 'PATCH', path: '/nowhere' }))).toMatch(/no cloudfront operation routes PATCH \/nowhere/);
    expect(recogniseCall(wire({ service: 'kms', method: 'POST', path: '/', target: 'TrentService.Decrypt', body: '{}' }))).toMatch(/no resource rule for kms/);
  });
});
