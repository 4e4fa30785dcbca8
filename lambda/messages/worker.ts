import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { powertools, TIMEOUT_EARLY_MS } from '../shared/middleware.js';
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
    middy<SQSEvent, SQSBatchResponse, Error, Context>({ timeoutEarlyInMillis: TIMEOUT_EARLY_MS })
      .use(powertools())
      // A batch where every record failed is still a partial response: SQS retries just those
      // records, and the function's error metric keeps meaning "the worker itself broke".
      .handler((event, context) =>
        processPartialResponse(event, processRecord, processor, { context, throwOnFullBatchFailure: false }),
      )
  );
}
