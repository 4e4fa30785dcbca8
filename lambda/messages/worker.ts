import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { powertools, TIMEOUT_EARLY_MS } from '../shared/middleware.js';
import { AcceptedTally, type AcceptedUsageRecorder } from '../usage-history/index.js';
import { type ProcessMessageDeps, processMessage } from './process-message.js';

/**
 * The queue worker: each record on its own through the processor, failures reported per item
 * (partial batch response); then the batch's accepted messages go to the usage history.
 */
export function createWorkerHandler(
  deps: Omit<ProcessMessageDeps, 'accepted'> & { readonly usageHistory: AcceptedUsageRecorder },
) {
  const processor = new BatchProcessor(EventType.SQS);
  return (
    middy<SQSEvent, SQSBatchResponse, Error, Context>({ timeoutEarlyInMillis: TIMEOUT_EARLY_MS })
      .use(powertools())
      // A batch where every record failed is still a partial response: SQS retries just those
      // records, and the function's error metric keeps meaning "the worker itself broke".
      .handler(async (event, context) => {
        const accepted = new AcceptedTally();
        const processOne = (record: SQSRecord) =>
          processMessage(
            {
              body: record.body,
              messageIdAttribute: record.messageAttributes?.messageId?.stringValue,
              receiveCount: Number(record.attributes?.ApproximateReceiveCount ?? '1'),
              receiptHandle: record.receiptHandle,
            },
            { ...deps, accepted },
          );
        const response = await processPartialResponse(event, processOne, processor, {
          context,
          throwOnFullBatchFailure: false,
        });
        await accepted.flush(deps.usageHistory);
        return response;
      })
  );
}
