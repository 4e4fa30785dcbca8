import { WORKER_EVENT_SOURCE } from '../contracts/messages.js';
import { MESSAGES_API_TRACE_SAMPLING } from '../lib/constructs/messages/trace-sampling.js';
import { SYSTEM_LOG_LEVEL } from '../lib/constructs/shared/platform-function.js';

/** us-east-1 list prices, on-demand, first tier, no free tiers: update the date with any value. */
export const PRICES_CHECKED_ON = '2026-11-25';

export const PRICES = {
  apiGatewayRestRequest: {
    usd: 3.5 / 1e6,
    unit: 'REST API request (first 333 million a month)',
    source: 'https://aws.amazon.com/api-gateway/pricing/',
  },
  wafRequest: {
    usd: 0.6 / 1e6,
    unit: 'web request inspected by a web ACL',
    source: 'https://aws.amazon.com/waf/pricing/',
  },
  wafWebAclMonth: { usd: 5, unit: 'web ACL per month', source: 'https://aws.amazon.com/waf/pricing/' },
  wafRuleMonth: { usd: 1, unit: 'rule or rule group per web ACL per month', source: 'https://aws.amazon.com/waf/pricing/' },
  lambdaRequest: { usd: 0.2 / 1e6, unit: 'Lambda invocation', source: 'https://aws.amazon.com/lambda/pricing/' },
  lambdaArmGbSecond: {
    usd: 0.0000133334,
    unit: 'GB-second on arm64 (first 7.5 billion a month)',
    source: 'https://aws.amazon.com/lambda/pricing/',
  },
  dynamoDbWriteRequestUnit: {
    usd: 0.625 / 1e6,
    unit: 'on-demand write request unit (1 KB)',
    source: 'https://aws.amazon.com/dynamodb/pricing/on-demand/',
  },
  dynamoDbReadRequestUnit: {
    usd: 0.125 / 1e6,
    unit: 'on-demand read request unit (4 KB strongly consistent, 8 KB eventually)',
    source: 'https://aws.amazon.com/dynamodb/pricing/on-demand/',
  },
  sqsRequest: {
    usd: 0.4 / 1e6,
    unit: 'standard queue request per 64 KB chunk (first 100 billion a month)',
    source: 'https://aws.amazon.com/sqs/pricing/',
  },
  cloudWatchLogsIngestedGb: {
    usd: 0.5,
    unit: 'GB of logs ingested (Lambda logs, first 10 TB; EMF metrics arrive as logs)',
    source: 'https://aws.amazon.com/cloudwatch/pricing/',
  },
  cloudWatchCustomMetricMonth: {
    usd: 0.3,
    unit: 'custom metric series per month (first 10,000)',
    source: 'https://aws.amazon.com/cloudwatch/pricing/',
  },
  xrayTraceRecorded: { usd: 5 / 1e6, unit: 'trace recorded', source: 'https://aws.amazon.com/xray/pricing/' },
} as const;

/** What the run does not measure, stated: the figure multiplies these with what it measures. */
export const ASSUMPTIONS = {
  /** PlatformFunction's default memory (lib/constructs/shared/platform-function.ts). */
  lambdaMemoryGb: 0.5,
  /** One in-region DynamoDB or SQS round trip from Lambda (p50 order of magnitude). */
  awsRoundTripMs: 8,
  /** A handler's own work per invocation besides its AWS calls (parsing, middlewares, logging). */
  handlerWorkMs: 3,
  /** The worker's event source batch size (contracts/messages.ts, WORKER_EVENT_SOURCE), batches assumed full. */
  workerBatchSize: WORKER_EVENT_SOURCE.batchSize,
  /** Per worker batch: ReceiveMessage and DeleteMessageBatch calls of at most 10 messages each. */
  sqsRequestsPerBatch: 2 * Math.ceil(WORKER_EVENT_SOURCE.batchSize / 10),
  /** Traced share of API requests at volume: the stage's sampling rule (its 1/s reservoir is negligible). */
  apiTraceSampling: MESSAGES_API_TRACE_SAMPLING.fixedRate,
  /** Traced share of worker invocations: Lambda samples queue events by X-Ray's default rule, 5 %. */
  workerTraceSampling: 0.05,
  /** Lambda's own log lines per invocation (START, END, REPORT: ~400 bytes), unless at WARN. */
  lambdaPlatformLogBytes: SYSTEM_LOG_LEVEL === 'WARN' ? 0 : 400,
  /** Rules of the Messages API's web ACL (contracts/firewall-rules.ts): two rate rules, two managed groups. */
  wafRules: 4,
} as const;
