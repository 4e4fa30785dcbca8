import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { SnsOperationsNotifier } from '../../../lambda/keys/sns-operations-notifier.js';

const sns = mockClient(SNSClient);
const TOPIC = 'arn:aws:sns:eu-west-1:123456789012:MessagesPlatform-Operations-Alarms';

beforeEach(() => {
  sns.reset();
  sns.on(PublishCommand).resolves({ MessageId: 'm-1' });
});

describe('SnsOperationsNotifier', () => {
  it('publishes the message as JSON to the topic, with the subject cut to SNS\'s 100 characters', async () => {
    const notifier = new SnsOperationsNotifier(new SNSClient({ region: 'eu-west-1' }), TOPIC);
    await notifier.notify(`Upgrade request: ${'a'.repeat(120)}`, { kind: 'upgrade_request', plan: 'pro' });
    const [input] = sns.commandCalls(PublishCommand).map((call) => call.args[0].input);
    expect(input?.TopicArn).toBe(TOPIC);
    expect(input?.Subject).toHaveLength(100);
    expect(JSON.parse(input?.Message ?? '')).toEqual({ kind: 'upgrade_request', plan: 'pro' });
  });

  it('lets a failed publish through to the caller (which keeps the recorded request)', async () => {
    sns.on(PublishCommand).rejects(new Error('AuthorizationError'));
    const notifier = new SnsOperationsNotifier(new SNSClient({ region: 'eu-west-1' }), TOPIC);
    await expect(notifier.notify('x', {})).rejects.toThrow('AuthorizationError');
  });
});
