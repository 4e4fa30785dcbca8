import type { ProcessMessage } from '../lambda/messages/processor.js';
import type { Clock } from '../lambda/shared/clock.js';
import type { PlatformConfig } from '../lib/config/index.js';
import type { LocalDomainsOptions } from './domains.js';

/** What startLocalPlatform (local/platform.ts) takes. Every port is on 127.0.0.1; 0 picks a free one. */
export interface LocalPlatformOptions {
  /** The Messages API. @default 3000 */
  readonly port?: number;
  /** The control API (accounts, keys, plans). @default 3001 */
  readonly controlPort?: number;
  /** Persist DynamoDB state here (LevelDB). @default in memory */
  readonly dataDir?: string;
  /** Time source of the handlers and usage plans. @default the system clock */
  readonly clock?: Clock;
  /** @default the platform config with no overrides */
  readonly config?: PlatformConfig;
  /** Visibility timeout of the local queue; short so retries and dead-lettering take seconds. @default 2 */
  readonly visibilityTimeoutSeconds?: number;
  /** Run the queue worker. @default true */
  readonly worker?: boolean;
  /** Tests: puts something between the functions and dynalite (a slowed proxy); answers its endpoint. */
  readonly dynamoDbFront?: (endpoint: string) => Promise<string>;
  /** The operator's processor the worker runs (`npm start -- --processor FILE`). @default accepts every message */
  readonly processor?: ProcessMessage;
  /** The edge: projects served by Host header. @default 8080 */
  readonly edgePort?: number;
  /** DNS servers (host:port) for the domain checks. @default the system resolver */
  readonly dnsServers?: readonly string[];
  /** Domain flow timing, and the simulated CloudFront's refusals to delete a released tenant (local/domains.ts). */
  readonly domainFlow?: LocalDomainsOptions['domainFlow'];
  /** Serve the dashboard (the built app, its API, the development sign-in). @default not served */
  readonly dashboard?: { readonly port?: number; readonly distDir?: string };
  /** Give the Pro demo account a deployed demo project (`demo`), as `npm start` does. @default false */
  readonly demoProject?: boolean;
  /** Webhook delivery: the longest wait per hop, and an attempt's timeout (tests shorten both). @default as on AWS */
  readonly webhooks?: { readonly maxHopSeconds?: number; readonly attemptTimeoutMs?: number };
}
