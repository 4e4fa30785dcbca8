import { z } from 'zod';
import { defaultConfig } from './defaults.js';
import type { PlanId, PlatformConfig } from './plans.js';
import { closestRegion, isKnownRegion } from './regions.js';

const wholeNumber = (what: string) =>
  z.number({ error: `${what} must be a number` }).int({ error: `${what} must be a whole number` });

const positiveInt = (what: string) => wholeNumber(what).positive({ error: `${what} must be greater than 0` });

/** A positive whole number up to `max`; `why` explains the ceiling in the error. */
const positiveIntUpTo = (what: string, max: number, why?: string) =>
  positiveInt(what).max(max, { error: `${what} must be at most ${max}${why ? ` (${why})` : ''}` });

/** A positive whole number of at least WAF's minimum rate limit, 10. */
const wafLimit = (what: string) =>
  positiveInt(what).min(10, { error: `${what} must be at least 10 (the WAF minimum)` });

const limitsSchema = (where: string) =>
  z.strictObject({
    perMinute: positiveInt(`${where}.perMinute`),
    perDay: positiveInt(`${where}.perDay`),
  })
    .refine((l) => l.perDay >= l.perMinute, {
      message: `${where}.perDay must be at least ${where}.perMinute`,
    });

const banSchema = (where: string) =>
  z.strictObject({
    threshold: positiveInt(`${where}.threshold`),
    durationSeconds: positiveInt(`${where}.durationSeconds`),
  });

const planSchema = (id: PlanId) =>
  z.strictObject({
    id: z.literal(id, { error: `plans.${id}.id must be "${id}"` }),
    displayName: z.string().min(1),
    limits: limitsSchema(`plans.${id}.limits`),
    customLimits: z.boolean(),
    ban: banSchema(`plans.${id}.ban`),
    customDomains: z.boolean(),
  });

const domainName = z.string().regex(/^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/, {
  message: 'must be a lower-case DNS name such as example.com',
});

// The settings: docs/operators/configuration.md, deploy.md ("Deploying") and operations.md ("Flood protection").
const platformConfigSchema = z.strictObject({
  plans: z.strictObject({
    free: planSchema('free'),
    pro: planSchema('pro'),
    business: planSchema('business'),
    enterprise: planSchema('enterprise'),
  })
    .refine(
      (p) =>
        p.free.limits.perMinute <= p.pro.limits.perMinute &&
        p.pro.limits.perMinute <= p.business.limits.perMinute &&
        p.free.limits.perDay <= p.pro.limits.perDay &&
        p.pro.limits.perDay <= p.business.limits.perDay,
      { message: 'plans must not get smaller from free to pro to business' },
    ),
  anonymous: limitsSchema('anonymous'),
  backstop: z.strictObject({
    factor: z
      .number({ error: 'backstop.factor must be a number' })
      .min(1, { error: 'backstop.factor must be at least 1' })
      .max(10, { error: 'backstop.factor must be at most 10' }),
    minBurst: positiveInt('backstop.minBurst'),
    anonymousCallers: positiveInt('backstop.anonymousCallers'),
  }),
  messages: z.strictObject({
    maxBodyBytes: positiveIntUpTo('messages.maxBodyBytes', 1024 * 1024, 'SQS accepts at most 1 MiB'),
    idempotencyTtlSeconds: positiveInt('messages.idempotencyTtlSeconds'),
    retentionDays: positiveInt('messages.retentionDays'),
    maxReceiveCount: positiveIntUpTo('messages.maxReceiveCount', 1000, 'the SQS redrive maximum'),
  }),
  // A module bundled into the queue worker (docs/processor.md).
  processor: z
    .string({ error: 'processor must be a path such as processors/default.ts' })
    .regex(/^(?!\/)(?!.*(^|\/)\.\.(\/|$))[\w./-]+\.(ts|mts|js|mjs)$/, {
      message: 'processor must be a .ts, .mts, .js or .mjs path inside the repository, relative to its root',
    }),
  auth: z.strictObject({
    keyCacheSeconds: wholeNumber('auth.keyCacheSeconds')
      .min(0, { error: 'auth.keyCacheSeconds must be at least 0' })
      .max(300, { error: 'auth.keyCacheSeconds must be at most 300' }),
  }),
  platform: z.strictObject({
    domain: domainName,
    region: z.string().superRefine((region, ctx) => {
      if (isKnownRegion(region)) return;
      const suggestion = closestRegion(region);
      ctx.addIssue({
        code: 'custom',
        message: `"${region}" is not an AWS region${suggestion ? ` (did you mean "${suggestion}"?)` : ' such as eu-west-1'}`,
      });
    }),
    hostedZone: z.strictObject({
      id: z.string().regex(/^Z[A-Z0-9]{1,31}$/, { message: 'must be a Route 53 hosted zone id such as Z0123456789ABCDEFGHIJ' }),
      name: domainName,
    }).optional(),
  })
    .refine((p) => !p.hostedZone || p.domain === p.hostedZone.name || p.domain.endsWith(`.${p.hostedZone.name}`), {
      message: 'platform.hostedZone.name must be platform.domain or a parent of it',
    }),
  domains: z.strictObject({
    driftCheck: z.strictObject({
      intervalMinutes: positiveIntUpTo('domains.driftCheck.intervalMinutes', 24 * 60, 'once a day'),
      gracePeriodDays: positiveIntUpTo('domains.driftCheck.gracePeriodDays', 90),
    }),
  }).default(structuredClone(defaultConfig.domains)),
  // alarms, protection and environment are deploy-time only: functions get the config without
  // them (runtimeConfig), so they default when absent.
  alarms: z.strictObject({
    email: z.email({ error: 'alarms.email must be an e-mail address' }).optional(),
    apiLatencyP99ThresholdMs: positiveIntUpTo('alarms.apiLatencyP99ThresholdMs', 29_000, 'the API Gateway integration timeout')
      .optional(),
  }).default({}),
  protection: z.strictObject({
    waf: z.strictObject({
      anonymousPerIpPerMinute: wafLimit('protection.waf.anonymousPerIpPerMinute'),
      perIpPerMinute: wafLimit('protection.waf.perIpPerMinute'),
    }),
    stageThrottle: z.strictObject({
      rateLimit: positiveInt('protection.stageThrottle.rateLimit'),
      burstLimit: positiveIntUpTo('protection.stageThrottle.burstLimit', 5_000, 'API Gateway account burst'),
    }),
    reservedConcurrency: z.strictObject({
      worker: z.number().int().min(0, { error: 'protection.reservedConcurrency.worker must be at least 0' }),
      domainFlowTask: z.number().int().min(0, { error: 'protection.reservedConcurrency.domainFlowTask must be at least 0' }),
      controlApi: z.number().int().min(0, { error: 'protection.reservedConcurrency.controlApi must be at least 0' }),
    }),
  })
    .refine((p) => p.waf.perIpPerMinute >= p.waf.anonymousPerIpPerMinute, {
      message: 'protection.waf.perIpPerMinute must be at least protection.waf.anonymousPerIpPerMinute',
    })
    .default(structuredClone(defaultConfig.protection)),
  environment: z.strictObject({
    terminationProtection: z.boolean({ error: 'environment.terminationProtection must be true or false' }),
    apiGatewayAccountRole: z.boolean({ error: 'environment.apiGatewayAccountRole must be true or false' }),
    tags: z
      .record(
        z.string(),
        z.string().regex(/^[\p{L}\p{N}\s_.:/=+\-@]{0,256}$/u, {
          message: 'environment.tags values must be at most 256 letters, digits, spaces or _.:/=+-@',
        }),
      )
      .superRefine((tags, ctx) => {
        for (const key of Object.keys(tags)) {
          if (key === 'Environment' || key === 'Application') {
            ctx.addIssue({ code: 'custom', message: `environment.tags must not set ${key}: the platform sets it (Environment = the stack prefix)` });
          } else if (key.startsWith('aws:') || !/^[\p{L}\p{N}\s_.:/=+\-@]{1,128}$/u.test(key)) {
            ctx.addIssue({ code: 'custom', message: `environment.tags key "${key}" must be 1-128 letters, digits, spaces or _.:/=+-@ and not start with "aws:"` });
          }
        }
      }),
  }).default(structuredClone(defaultConfig.environment) as never),
});

// The schema's output and the contracts' PlatformConfig (what functions read) must agree both ways:
// a field added to one and not the other fails the type check here.
type SchemaOutput = z.infer<typeof platformConfigSchema>;
type Agrees<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const schemaMatchesContract: Agrees<Omit<SchemaOutput, 'plans'>, Omit<PlatformConfig, 'plans'>> &
  Agrees<SchemaOutput['plans'][PlanId], PlatformConfig['plans'][PlanId]> = true;
void schemaMatchesContract;

export type { PlatformConfig };

export class ConfigError extends Error {
  constructor(readonly issues: readonly string[]) {
    super(`Invalid platform config:\n${issues.map((i) => `  - ${i}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Validates a config object; throws a ConfigError naming every bad value. */
export function validateConfig(input: unknown): PlatformConfig {
  const result = platformConfigSchema.safeParse(input);
  if (!result.success) {
    throw new ConfigError(
      result.error.issues.map((issue) => {
        const path = issue.path.join('.');
        return path && !issue.message.startsWith(path) ? `${path}: ${issue.message}` : issue.message;
      }),
    );
  }
  return result.data as PlatformConfig;
}
