import { afterEach, describe, expect, it, vi } from 'vitest';
import { defaultProvider } from '../../../lambda/shared/lambda-credentials.js';

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('Lambda bundle credentials (stand-in for the SDK default chain)', () => {
  it('reads the role credentials Lambda puts in the environment', async () => {
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'AKIDEXAMPLE');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'secret');
    vi.stubEnv('AWS_SESSION_TOKEN', 'token');
    vi.stubEnv('AWS_CREDENTIAL_EXPIRATION', '2030-01-01T00:00:00Z');
    await expect(defaultProvider({})()).resolves.toMatchObject({
      accessKeyId: 'AKIDEXAMPLE',
      secretAccessKey: 'secret',
      sessionToken: 'token',
      expiration: new Date('2030-01-01T00:00:00Z'),
    });
  });

  it('fails as the SDK env provider does when they are missing', async () => {
    vi.stubEnv('AWS_ACCESS_KEY_ID', '');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', '');
    await expect(defaultProvider()()).rejects.toMatchObject({ name: 'CredentialsProviderError' });
  });
});
