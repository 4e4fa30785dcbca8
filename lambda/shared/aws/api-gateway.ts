import type { ApiKey, GetApiKeyCommandInput } from '@aws-sdk/client-api-gateway';
import { AwsClient, type AwsClientConfig, type AwsResponseMetadata, jsonBody } from './aws-client.js';
import { uriEncode } from './sigv4.js';

export type { GetApiKeyCommandInput };

export type GetApiKeyCommandOutput = ApiKey & { readonly $metadata: AwsResponseMetadata };

/** The one API Gateway request the authorizer makes; shaped like the SDK's command. */
export class GetApiKeyCommand {
  readonly operation = 'GetApiKey';

  constructor(readonly input: GetApiKeyCommandInput) {}
}

export type ApiGatewayClientConfig = AwsClientConfig;

/** API Gateway's REST-JSON control API; GetApiKey only. */
export class ApiGatewayClient {
  private readonly client: AwsClient;

  constructor(config: ApiGatewayClientConfig = {}) {
    this.client = new AwsClient('apigateway', config);
  }

  async send(command: GetApiKeyCommand): Promise<GetApiKeyCommandOutput> {
    const { apiKey, includeValue } = command.input;
    if (!apiKey) throw new Error('GetApiKey: apiKey is required');
    const response = await this.client.request({
      operation: command.operation,
      method: 'GET',
      path: `/apikeys/${uriEncode(apiKey)}`,
      query: includeValue === undefined ? undefined : { includeValue: String(includeValue) },
      headers: { accept: 'application/json' },
    });
    const body = jsonBody(response, 'API Gateway GetApiKey');
    // Timestamps come as epoch seconds; the SDK's ApiKey has Dates.
    const date = (value: unknown) => (typeof value === 'number' ? new Date(value * 1000) : undefined);
    return {
      ...(body as ApiKey),
      createdDate: date(body.createdDate),
      lastUpdatedDate: date(body.lastUpdatedDate),
      $metadata: response.metadata,
    };
  }

  destroy(): void {
    this.client.destroy();
  }
}
