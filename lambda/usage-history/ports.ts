/** Refused requests (429) of a key on one UTC day, by reason. */
export interface RefusalCounts {
  readonly rateLimited: number;
  readonly banned: number;
}

/** Where the worker adds the accepted messages of a batch: one write per account and UTC day. */
export interface AcceptedUsageRecorder {
  addAccepted(accountId: string, date: string, perKey: ReadonlyMap<string, number>): Promise<void>;
}

export interface UsageHistoryReader {
  /** Accepted messages of the account per day and key: date → keyId → count (days without any are absent). */
  acceptedOn(accountId: string, dates: readonly string[]): Promise<Map<string, Map<string, number>>>;
  /** Refusals per key and day: keyId → date → counts (as kept on each key's limiter item). */
  refusalsOf(keyIds: readonly string[]): Promise<Map<string, Map<string, RefusalCounts>>>;
}
