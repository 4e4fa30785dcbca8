import { MemoryLimiterStore } from './memory-limiter-store.js';
import { storeContract } from '../lambda/rate-limits/store-contract.js';

// The same contract as the DynamoDB store's (a refusal carries the item, as DynamoDB sends it).
storeContract('MemoryLimiterStore', () => {
  const store = new MemoryLimiterStore();
  return { store, raw: async (id) => store.raw(id), refusalCarriesItem: true };
});
