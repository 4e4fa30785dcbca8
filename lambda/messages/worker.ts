import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { logger, metrics } from '../shared/powertools.js';
import { type ProcessMessageDeps, processMessage } from './process-message.js';

/** The queue worker: each record on its own, failures reported per item (partial batch response). */
export function createWorkerHandler(deps: ProcessMessageDeps) {
  const processor = new BatchProcessor(EventType.SQS);
  const processRecord = (record: SQSRecord) =>
    processMessage(
      {
        body: record.body,
        messageIdAttribute: record.messageAttributes?.messageId?.stringValue,
        receiveCount: Number(record.attributes?.ApproximateReceiveCount ?? '1'),
      },
      deps,
    );
  return (
    middy<SQSEvent, SQSBatchResponse, Error, Context>()
      .use(injectLambdaContext(logger, { resetKeys: true, logEvent: false }))
      .use(logMetrics(metrics))
      // A batch where every record failed is still a partial response: SQS retries just those
      // records, and the function's error metric keeps meaning "the worker itself broke".
      .handler((event, context) =>
        processPartialResponse(event, processRecord, processor, { context, throwOnFullBatchFailure: false }),
      )
  );
}
