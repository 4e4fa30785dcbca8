/**
 * The prefix of every customer API key (`sk_live_…`): the key format (lambda/keys/api-key-format.ts)
 * and the firewall's well-formed-key pattern (firewall-rules.ts) must agree on it.
 */
export const API_KEY_PREFIX = 'sk_live_';
