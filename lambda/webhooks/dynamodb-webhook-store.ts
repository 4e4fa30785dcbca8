import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  paginateQuery,
  PutCommand,
  QueryCommand,
  UpdateCommand,
  type UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { allItems, conditionally, getItem, isConditionFailure } from '../shared/dynamodb.js';
import {
  type DeliveryAttempt,
  type DeliveryJob,
  type DeliveryStatus,
  deliveryIdOf,
  type SigningSecret,
  type WebhookEndpoint,
} from './model.js';
import type { StoredDelivery, WebhookStore } from './ports.js';

const endpointKey = (accountId: string, webhookId: string) => ({ pk: `account#${accountId}`, sk: `webhook#${webhookId}` });
const deliveryKey = (subject: string, eventId: string, webhookId: string) => ({
  pk: subject,
  sk: `delivery#${eventId}#${webhookId}`,
});

/** What a delivery record keeps of its job, written by its first claim (or its abandonment). */
const DELIVERY_FIELDS =
  'accountId = :account, webhookId = :webhook, #url = :url, eventId = :event, #type = :type, payload = :payload, ' +
  'expiresAt = :expires';
const DELIVERY_FIELD_NAMES = { '#status': 'status', '#url': 'url', '#type': 'type' };
const deliveryFieldValues = (job: DeliveryJob, url: string) => ({
  ':account': job.accountId,
  ':webhook': job.webhookId,
  ':url': url,
  ':event': job.eventId,
  ':type': job.type,
  ':payload': job.payload,
  ':expires': job.expiresAt,
});

type EndpointItem = WebhookEndpoint & { pk: string; sk: string };
type DeliveryItem = Omit<StoredDelivery, 'id' | 'subject'> & { pk: string; sk: string };

function endpointOf(item: EndpointItem): WebhookEndpoint {
  const { pk: _pk, sk: _sk, ...endpoint } = item;
  return endpoint;
}

function deliveryOf(item: DeliveryItem): StoredDelivery {
  const { pk, sk: _sk, ...delivery } = item;
  return { ...delivery, subject: pk, id: deliveryIdOf(item.webhookId, item.type), attempts: item.attempts ?? [] };
}

/** Endpoints, deliveries and attempts in one DynamoDB table (contracts/webhooks.ts, WEBHOOK_TABLE_KEYS). */
export class DynamoDbWebhookStore implements WebhookStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async createEndpoint(endpoint: WebhookEndpoint): Promise<void> {
    await this.client.send(
      new PutCommand({
        TableName: this.tableName,
        Item: { ...endpointKey(endpoint.accountId, endpoint.id), ...endpoint },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  }

  async getEndpoint(accountId: string, webhookId: string): Promise<WebhookEndpoint | undefined> {
    const item = await getItem<EndpointItem>(this.client, this.tableName, endpointKey(accountId, webhookId));
    return item ? endpointOf(item) : undefined;
  }

  async listEndpoints(accountId: string): Promise<WebhookEndpoint[]> {
    const { Items = [] } = await this.client.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': `account#${accountId}`, ':prefix': 'webhook#' },
        ConsistentRead: true,
      }),
    );
    return (Items as EndpointItem[]).map(endpointOf);
  }

  removeEndpoint(accountId: string, webhookId: string): Promise<boolean> {
    return conditionally(() =>
      this.client.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: endpointKey(accountId, webhookId),
          ConditionExpression: 'attribute_exists(pk)',
        }),
      ),
    );
  }

  setSecrets(accountId: string, webhookId: string, secrets: readonly SigningSecret[]): Promise<boolean> {
    return this.updateEndpoint(accountId, webhookId, {
      UpdateExpression: 'SET secrets = :secrets',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':secrets': secrets },
    });
  }

  async markFailing(accountId: string, webhookId: string, atMs: number): Promise<number | undefined> {
    try {
      const { Attributes } = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: endpointKey(accountId, webhookId),
          UpdateExpression: 'SET failingSince = if_not_exists(failingSince, :at)',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':at': atMs },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return (Attributes as EndpointItem | undefined)?.failingSince;
    } catch (error) {
      if (isConditionFailure(error)) return undefined;
      throw error;
    }
  }

  async clearFailing(accountId: string, webhookId: string): Promise<void> {
    await this.updateEndpoint(accountId, webhookId, {
      UpdateExpression: 'REMOVE failingSince',
      ConditionExpression: 'attribute_exists(pk)',
    });
  }

  /** A conditional update of an endpoint: false when its condition failed. */
  private updateEndpoint(
    accountId: string,
    webhookId: string,
    update: Omit<UpdateCommandInput, 'TableName' | 'Key'>,
  ): Promise<boolean> {
    const Key = endpointKey(accountId, webhookId);
    return conditionally(() => this.client.send(new UpdateCommand({ TableName: this.tableName, Key, ...update })));
  }

  disable(accountId: string, webhookId: string, at: string, reason: string): Promise<boolean> {
    return this.updateEndpoint(accountId, webhookId, {
      UpdateExpression: 'SET #status = :disabled, disabledAt = :at, disabledReason = :reason',
      ConditionExpression: '#status = :enabled',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':disabled': 'disabled', ':enabled': 'enabled', ':at': at, ':reason': reason },
    });
  }

  claimAttempt(job: DeliveryJob, url: string, nowMs: number, staleAfterMs: number): Promise<boolean> {
    // Attempt n+1 is free when n were claimed; or when n+1 were claimed but the (n+1)th was never
    // recorded and its claim is stale: the function that took it died before recording it.
    const free = job.attempt === 0 ? 'attribute_not_exists(attemptsStarted)' : 'attemptsStarted = :n';
    const abandoned =
      'attemptsStarted = :next AND claimedAt < :stale AND (attribute_not_exists(attempts) OR size(attempts) < :next)';
    return conditionally(() =>
      this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: deliveryKey(job.subject, job.eventId, job.webhookId),
          UpdateExpression: `SET attemptsStarted = :next, claimedAt = :now, #status = :pending, ${DELIVERY_FIELDS}`,
          ConditionExpression: `(${free}) OR (${abandoned})`,
          ExpressionAttributeNames: DELIVERY_FIELD_NAMES,
          ExpressionAttributeValues: {
            ...(job.attempt === 0 ? {} : { ':n': job.attempt }),
            ':next': job.attempt + 1,
            ':now': nowMs,
            ':stale': nowMs - staleAfterMs,
            ':pending': 'pending',
            ...deliveryFieldValues(job, url),
          },
        }),
      ),
    );
  }

  async recordAttempt(
    job: DeliveryJob,
    attempt: DeliveryAttempt,
    outcome: { readonly status: DeliveryStatus; readonly nextAttemptAt?: string; readonly reason?: string },
  ): Promise<void> {
    const set = ['attempts = list_append(if_not_exists(attempts, :none), :attempt)', '#status = :status'];
    const remove: string[] = [];
    const values: Record<string, unknown> = { ':none': [], ':attempt': [attempt], ':status': outcome.status };
    for (const field of ['nextAttemptAt', 'reason'] as const) {
      if (outcome[field]) {
        set.push(`${field} = :${field}`);
        values[`:${field}`] = outcome[field];
      } else remove.push(field);
    }
    await this.client.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: deliveryKey(job.subject, job.eventId, job.webhookId),
        UpdateExpression: `SET ${set.join(', ')}${remove.length ? ` REMOVE ${remove.join(', ')}` : ''}`,
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: values,
      }),
    );
  }

  async abandon(job: DeliveryJob, url: string, reason: string): Promise<void> {
    await this.client.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: deliveryKey(job.subject, job.eventId, job.webhookId),
        UpdateExpression:
          `SET #status = :abandoned, reason = :reason, ${DELIVERY_FIELDS}, ` +
          'attemptsStarted = if_not_exists(attemptsStarted, :zero) REMOVE nextAttemptAt',
        ExpressionAttributeNames: DELIVERY_FIELD_NAMES,
        ExpressionAttributeValues: {
          ':abandoned': 'abandoned',
          ':reason': reason,
          ...deliveryFieldValues(job, url),
          ':zero': 0,
        },
      }),
    );
  }

  async getDelivery(subject: string, eventId: string, webhookId: string): Promise<StoredDelivery | undefined> {
    const item = await getItem<DeliveryItem>(this.client, this.tableName, deliveryKey(subject, eventId, webhookId));
    return item ? deliveryOf(item) : undefined;
  }

  async listDeliveries(subject: string): Promise<StoredDelivery[]> {
    const items = await allItems<DeliveryItem>(
      paginateQuery(
        { client: this.client },
        {
          TableName: this.tableName,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
          ExpressionAttributeValues: { ':pk': subject, ':prefix': 'delivery#' },
        },
      ),
    );
    return items.map(deliveryOf);
  }
}
