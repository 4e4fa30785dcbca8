import type { OperationsNotifier } from '../lambda/keys/upgrade-requests.js';

/** A message the platform published to the operations topic. */
export interface PublishedMessage {
  readonly subject: string;
  readonly message: Readonly<Record<string, unknown>>;
  readonly publishedAt: string;
}

/**
 * The operations topic of the local platform: there is no SNS locally, so what the control API
 * publishes is recorded here (and printed, as an operator subscribed to it would see it).
 */
export class RecordedOperationsTopic implements OperationsNotifier {
  readonly messages: PublishedMessage[] = [];

  constructor(private readonly options: { readonly now: () => number; readonly print?: boolean }) {}

  notify(subject: string, message: Readonly<Record<string, unknown>>): Promise<void> {
    this.messages.push({ subject, message, publishedAt: new Date(this.options.now()).toISOString() });
    if (this.options.print ?? true) console.log(`[operations topic] ${subject}`);
    return Promise.resolve();
  }
}
