/** The cold-start figure's baseline: plain SDK v3 clients making an accepted POST's calls (bench/README.md). */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';

const documents = DynamoDBDocumentClient.from(new DynamoDBClient({}));
const sqs = new SQSClient({});

export async function handler(event: Readonly<Record<'rateLimitsTable' | 'messagesTable' | 'queueUrl' | 'id', string>>) {
  await documents.send(
    new UpdateCommand({
      TableName: event.rateLimitsTable,
      Key: { id: `bench#${event.id}` },
      UpdateExpression: 'ADD #n :one',
      ExpressionAttributeNames: { '#n': 'n' },
      ExpressionAttributeValues: { ':one': 1 },
    }),
  );
  await Promise.all([
    documents.send(new PutCommand({ TableName: event.messagesTable, Item: { id: event.id, message: 'bench message' } })),
    sqs.send(
      new SendMessageCommand({
        QueueUrl: event.queueUrl,
        MessageBody: JSON.stringify({ id: event.id }),
        MessageAttributes: { messageId: { DataType: 'String', StringValue: event.id } },
      }),
    ),
  ]);
}
