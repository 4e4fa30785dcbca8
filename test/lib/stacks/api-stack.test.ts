import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../../lib/app.js';
import { loadConfig } from '../../../lib/config/index.js';
import {
  PLATFORM_CONFIG_OUTPUT,
  PLATFORM_CONFIG_OUTPUT_MAX_BYTES,
  platformConfigOutputValue,
} from '../../../lib/stacks/api-stack-outputs.js';
import { cdkJsonContext, SKIP_BUNDLING } from '../support/cdk-app.js';

/** Deploy-time overrides, as `-c platform='{...}'` gives them. */
const OVERRIDES = {
  platform: { region: 'eu-central-1' },
  plans: { pro: { limits: { perMinute: 123, perDay: 4_567 } } },
  backstop: { factor: 3 },
};

const appWith = (platform: unknown) =>
  buildApp({ context: { ...cdkJsonContext(), ...SKIP_BUNDLING, platform: JSON.stringify(platform) }, nag: false });

describe('ApiStack output PlatformConfig', () => {
  it('publishes the effective config: the defaults with the deploy-time overrides merged in, validated', () => {
    const { apiStack, config } = appWith(OVERRIDES);
    type Output = { Value: unknown; Description?: string; Export?: unknown };
    const output = (Template.fromStack(apiStack).toJSON().Outputs as Record<string, Output>)[PLATFORM_CONFIG_OUTPUT];
    expect(typeof output?.Value).toBe('string');
    const published = JSON.parse(output?.Value as string) as unknown;
    expect(published).toEqual(config);
    expect(published).toEqual(loadConfig(OVERRIDES));
    expect(published).not.toEqual(loadConfig());
    expect(output?.Description).toMatch(/effective platform config/);
    // Not exported: nothing else may come to depend on it.
    expect(output).not.toHaveProperty('Export');
  });

  it('fails synth, naming its size and ceiling, when the config would not fit', () => {
    const huge = { plans: { free: { displayName: 'F'.repeat(PLATFORM_CONFIG_OUTPUT_MAX_BYTES) } } };
    const size = Buffer.byteLength(JSON.stringify(loadConfig(huge)));
    expect(() => appWith(huge)).toThrow(
      `the PlatformConfig stack output would be ${size} bytes, above its 4096-byte ceiling: shorten the platform config (e.g. plan display names)`,
    );
  });

  it('accepts a config of exactly the ceiling', () => {
    const withName = (displayName: string) => loadConfig({ plans: { free: { displayName } } });
    const oneCharacter = Buffer.byteLength(JSON.stringify(withName('x')));
    const config = withName('x'.repeat(1 + PLATFORM_CONFIG_OUTPUT_MAX_BYTES - oneCharacter));
    expect(Buffer.byteLength(platformConfigOutputValue(config))).toBe(PLATFORM_CONFIG_OUTPUT_MAX_BYTES);
    expect(() => platformConfigOutputValue(withName('x'.repeat(2 + PLATFORM_CONFIG_OUTPUT_MAX_BYTES - oneCharacter)))).toThrow(
      `would be ${PLATFORM_CONFIG_OUTPUT_MAX_BYTES + 1} bytes`,
    );
  });
});
