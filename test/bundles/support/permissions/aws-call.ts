import { createRequire } from 'node:module';
import type { AuthorizedCall } from './iam-policy.js';

// What IAM authorizes for one request a bundle sent: the action and the ARNs it acts on, read off
// the wire. JSON protocols name their operation in X-Amz-Target; REST protocols (CloudFront, the
// KeyValueStore, API Gateway, S3) are matched against the routes of the SDK's own operation
// schemas (the `<Operation>$` exports of each client: `[9, namespace, name, {http: [method, uri]}]`),
// so no route is written by hand. Resource ARNs follow the Service Authorization Reference of each
// service (API Gateway authorizes `apigateway:<HTTP method>` on the path itself).

/** The request as the recording proxy saw it. */
export interface WireRequest {
  /** The signing name of the credential scope: `dynamodb`, `sqs`, `cloudfront`, `apigateway`, ... */
  readonly service: string;
  readonly region: string;
  readonly method: string;
  /** Percent-encoded, without the query. */
  readonly path: string;
  readonly query: URLSearchParams;
  readonly target: string | undefined;
  readonly body: string;
}

export interface RecognisedCall extends AuthorizedCall {
  /** `PutKey`, `GetItem`, ...: the SDK operation. */
  readonly operation: string;
}

const ACCOUNT_OF_LOCAL_ARNS = '000000000000';

interface Route {
  readonly operation: string;
  readonly method: string;
  readonly segments: readonly string[];
  /** Literal query keys (and values) the route requires, e.g. `x-id=PutObject`. */
  readonly query: ReadonlyArray<readonly [string, string | undefined]>;
}

type OperationSchema = [number, string, string, { http?: [string, string, number] } | 0];

const require = createRequire(import.meta.url);
const REST_CLIENTS: Record<string, string> = {
  cloudfront: '@aws-sdk/client-cloudfront',
  'cloudfront-keyvaluestore': '@aws-sdk/client-cloudfront-keyvaluestore',
  apigateway: '@aws-sdk/client-api-gateway',
  s3: '@aws-sdk/client-s3',
};
const routeTables = new Map<string, Route[]>();

function routesOf(service: string): Route[] {
  let routes = routeTables.get(service);
  if (routes) return routes;
  const pkg = REST_CLIENTS[service];
  if (!pkg) return [];
  const client = require(pkg) as Record<string, unknown>;
  routes = Object.entries(client)
    .filter(([name, v]) => name.endsWith('$') && Array.isArray(v) && v[0] === 9)
    .flatMap(([, v]) => {
      const [, , operation, traits] = v as OperationSchema;
      const http = traits === 0 ? undefined : traits.http;
      if (!http) return [];
      const [uriPath = '', uriQuery = ''] = http[1].split('?');
      const query = uriQuery.split('&').filter(Boolean).map((kv) => {
        const [k = '', val] = kv.split('=');
        return [k, val] as const;
      });
      return [{ operation, method: http[0], segments: uriPath.split('/').filter(Boolean), query }];
    });
  routeTables.set(service, routes);
  return routes;
}

/** The route the request takes, with its labels: the most literal of those that match. */
function matchRoute(service: string, method: string, segments: readonly string[], query: URLSearchParams) {
  let best: { route: Route; labels: Record<string, string>; score: number } | undefined;
  for (const route of routesOf(service)) {
    if (route.method !== method) continue;
    if (!route.query.every(([k, v]) => query.has(k) && (v === undefined || query.get(k) === v))) continue;
    const labels: Record<string, string> = {};
    let score = route.query.length;
    let i = 0;
    let ok = true;
    for (const part of route.segments) {
      const label = /^\{(\w+)(\+?)\}$/.exec(part);
      if (label?.[2]) {
        if (i >= segments.length) ok = false;
        else labels[label[1] ?? ''] = segments.slice(i).join('/');
        i = segments.length;
      } else if (label) {
        if (i >= segments.length) ok = false;
        else labels[label[1] ?? ''] = segments[i] ?? '';
        i += 1;
      } else {
        if (segments[i] !== part) ok = false;
        i += 1;
        score += 10;
      }
      if (!ok) break;
    }
    if (!ok || i !== segments.length) continue;
    if (!best || score > best.score) best = { route, labels, score };
  }
  return best;
}

const decode = (s: string) => decodeURIComponent(s);

function cloudFrontResource(
  labels: Record<string, string>,
  route: Route,
  query: URLSearchParams,
  body: string,
): string {
  const tenant = (id: string) => (id.startsWith('arn:') ? id : `arn:aws:cloudfront::${ACCOUNT_OF_LOCAL_ARNS}:distribution-tenant/${id}`);
  const tagged = query.get('Resource');
  if (tagged) return tagged;
  const id = labels.Id ?? labels.Identifier;
  const kind = route.segments.find((s) => !s.startsWith('{') && s !== '2020-05-31');
  if (id !== undefined) {
    const value = decode(id);
    if (kind === 'distribution-tenant' || kind === 'managed-certificate') return tenant(value);
    if (kind === 'distribution') return `arn:aws:cloudfront::${ACCOUNT_OF_LOCAL_ARNS}:distribution/${value}`;
    return value.startsWith('arn:') ? value : `arn:aws:cloudfront::${ACCOUNT_OF_LOCAL_ARNS}:${kind}/${value}`;
  }
  // VerifyDnsConfiguration names its tenant in the body.
  const identifier = /<Identifier>([^<]*)<\/Identifier>/.exec(body)?.[1];
  if (identifier) return tenant(identifier);
  // A creation names no existing resource: IAM checks it against the type's ARN with any id.
  if (kind === 'distribution-tenant') return tenant('*');
  return `arn:aws:cloudfront::${ACCOUNT_OF_LOCAL_ARNS}:${kind ?? ''}/*`;
}

/** S3 actions whose IAM name differs from the operation (Service Authorization Reference, Amazon S3). */
const S3_ACTIONS: Record<string, string> = {
  HeadObject: 'GetObject',
  HeadBucket: 'ListBucket',
  ListObjectsV2: 'ListBucket',
  ListObjects: 'ListBucket',
  DeleteObjects: 'DeleteObject',
  CopyObject: 'PutObject',
  CreateMultipartUpload: 'PutObject',
  UploadPart: 'PutObject',
  CompleteMultipartUpload: 'PutObject',
};

function restCall(req: WireRequest): RecognisedCall | string {
  let segments = req.path.split('/').filter(Boolean);
  // Path-style S3 (the SDK's choice for an IP endpoint): the bucket is the first segment.
  const bucket = req.service === 's3' ? decode(segments[0] ?? '') : '';
  if (req.service === 's3') segments = segments.slice(1);
  const match = matchRoute(req.service, req.method, segments, req.query);
  if (!match) return `no ${req.service} operation routes ${req.method} ${req.path}`;
  const { route, labels } = match;
  switch (req.service) {
    case 'cloudfront':
      return { operation: route.operation, action: `cloudfront:${route.operation}`, resources: [cloudFrontResource(labels, route, req.query, req.body)] };
    case 'cloudfront-keyvaluestore':
      return { operation: route.operation, action: `cloudfront-keyvaluestore:${route.operation}`, resources: [decode(labels.KvsARN ?? '*')] };
    case 'apigateway':
      return { operation: route.operation, action: `apigateway:${req.method}`, resources: [`arn:aws:apigateway:${req.region}::${decode(req.path)}`] };
    case 's3': {
      const key = labels.Key === undefined ? undefined : decode(labels.Key);
      const action = `s3:${S3_ACTIONS[route.operation] ?? route.operation}`;
      return { operation: route.operation, action, resources: [key === undefined ? `arn:aws:s3:::${bucket}` : `arn:aws:s3:::${bucket}/${key}`] };
    }
    default:
      return `no resource rule for ${req.service}`;
  }
}

const queueArn = (region: string, queueUrl: string) => {
  const [account, name] = new URL(queueUrl).pathname.split('/').filter(Boolean).slice(-2);
  return `arn:aws:sqs:${region}:${account ?? ACCOUNT_OF_LOCAL_ARNS}:${name ?? ''}`;
};

type Input = Record<string, unknown>;

/**
 * SQS has no IAM action for its batch operations: SendMessage's permission covers SendMessageBatch,
 * and so on (SQS Developer Guide, "Amazon SQS batch actions",
 * https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-batch-api.html).
 */
const SQS_ACTIONS: Record<string, string> = {
  SendMessageBatch: 'SendMessage',
  DeleteMessageBatch: 'DeleteMessage',
  ChangeMessageVisibilityBatch: 'ChangeMessageVisibility',
};

function dynamoDbResources(region: string, input: Input): string[] {
  const table = (name: unknown, index?: unknown) =>
    `arn:aws:dynamodb:${region}:${ACCOUNT_OF_LOCAL_ARNS}:table/${String(name)}${index ? `/index/${String(index)}` : ''}`;
  if (input.TableName) return [table(input.TableName, input.IndexName)];
  if (input.RequestItems) return Object.keys(input.RequestItems as Input).map((name) => table(name));
  if (Array.isArray(input.TransactItems)) {
    return (input.TransactItems as Input[]).map((item) => table((Object.values(item)[0] as Input).TableName));
  }
  return [];
}

function jsonCall(req: WireRequest): RecognisedCall | string {
  const operation = req.target?.split('.').pop() ?? '';
  let input: Input;
  try {
    input = JSON.parse(req.body || '{}') as Input;
  } catch {
    return `${req.service} ${operation}: body is not JSON`;
  }
  const action = req.service === 'sqs' ? (SQS_ACTIONS[operation] ?? operation) : operation;
  const of = (resources: string[]) => ({ operation, action: `${req.service}:${action}`, resources });
  switch (req.service) {
    case 'dynamodb': {
      const resources = dynamoDbResources(req.region, input);
      return resources.length ? of(resources) : `dynamodb ${operation}: no table named in the request`;
    }
    case 'sqs':
      return input.QueueUrl ? of([queueArn(req.region, String(input.QueueUrl))]) : `sqs ${operation}: no QueueUrl`;
    case 'states':
      if (input.stateMachineArn) return of([String(input.stateMachineArn)]);
      if (input.executionArn) return of([String(input.executionArn)]);
      return of(['*']);
    case 'acm':
      return of([input.CertificateArn ? String(input.CertificateArn) : '*']);
    default:
      return `no resource rule for ${req.service} ${operation}`;
  }
}

/** The call IAM authorizes, or why it could not be recognised (which fails the check too). */
export function recogniseCall(req: WireRequest): RecognisedCall | string {
  if (req.target) return jsonCall(req);
  return restCall(req);
}
