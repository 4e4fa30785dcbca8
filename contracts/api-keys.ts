/** Every customer API key's prefix: its format (lambda/keys/api-key-format.ts) and WELL_FORMED_BEARER agree on it. */
export const API_KEY_PREFIX = 'sk_live_';
