import { GetQueueAttributesCommand, SQSClient, StartMessageMoveTaskCommand } from '@aws-sdk/client-sqs';
import type { DeployedStack } from './deployed-stack.js';
import { CliError } from './errors.js';

/** An SQS message move task from the API stack's DeadLetterQueueUrl to its QueueUrl. */
export async function startRedrive(stack: DeployedStack) {
  const { QueueUrl: queueUrl, DeadLetterQueueUrl: deadLetterQueueUrl } = stack.outputs;
  if (queueUrl === undefined || deadLetterQueueUrl === undefined) {
    throw new CliError(`stack ${stack.stackName} (${stack.source}) lacks the QueueUrl and DeadLetterQueueUrl outputs`, {
      code: 'missing_outputs',
      hint: 'is it the API stack (<stackPrefix>-Api), deployed from this version of the platform?',
    });
  }
  const sqs = new SQSClient({ region: stack.region });
  try {
    const names = ['QueueArn', 'ApproximateNumberOfMessages'] as const;
    const attributes = async (url: string) =>
      (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: [...names] }))).Attributes ?? {};
    const dlq = await attributes(deadLetterQueueUrl);
    const queue = await attributes(queueUrl);
    const sourceArn = dlq.QueueArn as string;
    const destinationArn = queue.QueueArn as string;
    const task = await sqs.send(
      new StartMessageMoveTaskCommand({ SourceArn: sourceArn, DestinationArn: destinationArn }),
    );
    return { taskHandle: task.TaskHandle ?? '', sourceArn, destinationArn, messages: Number(dlq.ApproximateNumberOfMessages ?? 0) };
  } finally {
    sqs.destroy();
  }
}
