import { createHash } from 'node:crypto';
import type {
  MessageAttributeValue,
  SendMessageCommandInput,
  SendMessageCommandOutput,
} from '@aws-sdk/client-sqs';
import { AwsClient, type AwsClientConfig, type AwsResponseMetadata, AwsServiceError, jsonBody } from './aws-client.js';

export type { SendMessageCommandInput, SendMessageCommandOutput };

/** The one SQS request the Lambdas make; shaped like the SDK's command. */
export class SendMessageCommand {
  readonly operation = 'SendMessage';

  constructor(readonly input: SendMessageCommandInput) {}
}

const md5 = (data: Buffer | string) => createHash('md5').update(data).digest('hex');

const binary = (value: Uint8Array): Buffer => Buffer.from(value.buffer, value.byteOffset, value.byteLength);

/** SQS's digest of message attributes: per name in order, length-prefixed name, type, transport byte and value. */
export function md5OfMessageAttributes(attributes: Readonly<Record<string, MessageAttributeValue>>): string {
  const parts: Buffer[] = [];
  const lengthPrefixed = (value: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(value.length);
    parts.push(length, value);
  };
  for (const name of Object.keys(attributes).sort()) {
    const attribute = attributes[name] as MessageAttributeValue;
    lengthPrefixed(Buffer.from(name, 'utf8'));
    lengthPrefixed(Buffer.from(attribute.DataType ?? '', 'utf8'));
    if (attribute.BinaryValue !== undefined) {
      parts.push(Buffer.from([2]));
      lengthPrefixed(binary(attribute.BinaryValue));
    } else {
      parts.push(Buffer.from([1]));
      lengthPrefixed(Buffer.from(attribute.StringValue ?? '', 'utf8'));
    }
  }
  return md5(Buffer.concat(parts));
}

function serializeAttributes(attributes: Readonly<Record<string, MessageAttributeValue>>) {
  const out: Record<string, Record<string, unknown>> = {};
  for (const [name, attribute] of Object.entries(attributes)) {
    out[name] = {
      DataType: attribute.DataType,
      ...(attribute.StringValue !== undefined ? { StringValue: attribute.StringValue } : {}),
      ...(attribute.BinaryValue !== undefined ? { BinaryValue: binary(attribute.BinaryValue).toString('base64') } : {}),
    };
  }
  return out;
}

function checksumError(what: string, metadata: AwsResponseMetadata): AwsServiceError {
  // Not retried: the message may well be on the queue already.
  return new AwsServiceError({
    name: 'ChecksumMismatchError',
    message: `SQS SendMessage: ${what} does not match what was sent`,
    fault: 'server',
    metadata,
    retryable: false,
  });
}

export type SqsClientConfig = AwsClientConfig;

/** SQS on its JSON protocol; SendMessage only, answers checked against the digests SQS returns. */
export class SqsClient {
  private readonly client: AwsClient;

  constructor(config: SqsClientConfig = {}) {
    this.client = new AwsClient('sqs', config);
  }

  async send(command: SendMessageCommand): Promise<SendMessageCommandOutput> {
    const { MessageAttributes, MessageSystemAttributes, ...rest } = command.input;
    const body: Record<string, unknown> = { ...rest };
    if (MessageAttributes) body.MessageAttributes = serializeAttributes(MessageAttributes);
    if (MessageSystemAttributes) body.MessageSystemAttributes = serializeAttributes(MessageSystemAttributes);
    // x-amzn-query-mode asks for the legacy error code in x-amzn-query-error, as the SDK does.
    const response = await this.client.postJson(command.operation, 'AmazonSQS', body, { 'x-amzn-query-mode': 'true' });
    const output: SendMessageCommandOutput = { ...jsonBody(response, 'SQS SendMessage'), $metadata: response.metadata };
    if (output.MD5OfMessageBody !== md5(command.input.MessageBody ?? '')) {
      throw checksumError('MD5OfMessageBody', response.metadata);
    }
    if (
      MessageAttributes &&
      Object.keys(MessageAttributes).length > 0 &&
      output.MD5OfMessageAttributes !== md5OfMessageAttributes(MessageAttributes)
    ) {
      throw checksumError('MD5OfMessageAttributes', response.metadata);
    }
    return output;
  }

  destroy(): void {
    this.client.destroy();
  }
}
