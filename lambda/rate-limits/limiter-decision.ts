import type { BanPolicy, RateLimits } from '../../contracts/plans.js';
import type { LimiterState, WindowName } from './limiter-state.js';
import type { RefundWindows } from './limiter-store.js';

/** A key of an account: it draws on the account's budget; bans and revocation are its own. */
export interface KeySubject {
  readonly kind: 'key';
  readonly keyId: string;
  readonly accountId: string;
  /** As the authorizer saw them; the shards' stored limits win. */
  readonly limits: RateLimits;
  readonly ban: BanPolicy;
}

/** A caller without a valid key, budgeted per client IP; never banned. */
export interface AnonymousSubject {
  readonly kind: 'anonymous';
  readonly id: string;
  readonly limits: RateLimits;
}

export type LimiterSubject = KeySubject | AnonymousSubject;

/** Where a counted request was counted, for a refund. */
export interface Consumption extends RefundWindows {
  readonly item: string;
}

export interface AllowedDecision {
  readonly outcome: 'allowed';
  readonly state: LimiterState;
  readonly consumption?: Consumption;
  /** Tidying the write left, already running, never rejecting: await it before answering (Lambda freezes). */
  readonly housekeeping?: Promise<void>;
}

export type LimiterDecision =
  | AllowedDecision |
  {
    readonly outcome: 'rate_limited';
    readonly state: LimiterState;
    readonly window: WindowName;
    readonly retryAfterSeconds: number;
  } |
  { readonly outcome: 'banned'; readonly state: LimiterState; readonly retryAfterSeconds: number } |
  { readonly outcome: 'revoked'; readonly state: LimiterState };

/** How a request that is not counted is judged: a send is refused at the limit, a read only when banned. */
export type PeekMode = 'send' | 'read';
