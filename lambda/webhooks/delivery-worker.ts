import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { powertools, TIMEOUT_EARLY_MS } from '../shared/middleware.js';
import { logger } from '../shared/powertools.js';
import { type DeliverDeps, deliver } from './deliver.js';
import type { DeliveryJob } from './model.js';

/** The delivery function: each job on its own, side by side, failures reported per item (partial batch response). */
export function createDeliveryHandler(deps: DeliverDeps) {
  const processor = new BatchProcessor(EventType.SQS);
  const processOne = async (record: SQSRecord) => {
    const job = JSON.parse(record.body) as DeliveryJob;
    if (job.v !== 1) {
      // Not ours to understand: dropped, with a trace in the logs, rather than retried into the DLQ.
      logger.error('delivery job of an unknown version dropped', { messageId: record.messageId });
      return;
    }
    const outcome = await deliver(job, deps);
    if (outcome !== 'waiting') logger.info('webhook delivery', { outcome, eventId: job.eventId, webhookId: job.webhookId });
  };
  return middy<SQSEvent, SQSBatchResponse, Error, Context>({ timeoutEarlyInMillis: TIMEOUT_EARLY_MS })
    .use(powertools())
    .handler((event, context) =>
      processPartialResponse(event, processOne, processor, { context, throwOnFullBatchFailure: false }),
    );
}
