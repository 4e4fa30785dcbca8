import { z } from 'zod';
import { defaultConfig } from './defaults.js';
import type { PlanId, PlatformConfig } from './plans.js';
import { closestRegion, isKnownRegion } from './regions.js';

const positiveInt = (what: string) =>
  z
    .number({ error: `${what} must be a number` })
    .int({ error: `${what} must be a whole number` })
    .positive({ error: `${what} must be greater than 0` });

const limitsSchema = (where: string) =>
  z
    .object({
      perMinute: positiveInt(`${where}.perMinute`),
      perDay: positiveInt(`${where}.perDay`),
    })
    .strict()
    .refine((l) => l.perDay >= l.perMinute, {
      message: `${where}.perDay must be at least ${where}.perMinute`,
    });

const banSchema = (where: string) =>
  z
    .object({
      threshold: positiveInt(`${where}.threshold`),
      durationSeconds: positiveInt(`${where}.durationSeconds`),
    })
    .strict();

const planSchema = (id: PlanId) =>
  z
    .object({
      id: z.literal(id, { error: `plans.${id}.id must be "${id}"` }),
      displayName: z.string().min(1),
      limits: limitsSchema(`plans.${id}.limits`),
      customLimits: z.boolean(),
      ban: banSchema(`plans.${id}.ban`),
      customDomains: z.boolean(),
    })
    .strict();

const domainName = z.string().regex(/^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/, {
  message: 'must be a lower-case DNS name such as example.com',
});

export const platformConfigSchema = z
  .object({
    plans: z
      .object({
        free: planSchema('free'),
        pro: planSchema('pro'),
        business: planSchema('business'),
        enterprise: planSchema('enterprise'),
      })
      .strict()
      .refine(
        (p) =>
          p.free.limits.perMinute <= p.pro.limits.perMinute &&
          p.pro.limits.perMinute <= p.business.limits.perMinute &&
          p.free.limits.perDay <= p.pro.limits.perDay &&
          p.pro.limits.perDay <= p.business.limits.perDay,
        { message: 'plans must not get smaller from free to pro to business' },
      ),
    /** Budget per client IP for requests without a valid key, so 401s carry rate-limit headers and key guessing is slowed. */
    anonymous: limitsSchema('anonymous'),
    /**
     * API Gateway usage plans are a best-effort backstop; our limiter is exact and must answer first.
     * Usage plans meter every request (also the ones we refuse) as a token bucket in req/s, while
     * our windows are fixed minutes: a client may legitimately send a minute's budget at :59 and
     * again at :00. The backstop is therefore this many times the plan's limits.
     */
    backstop: z
      .object({
        factor: z
          .number({ error: 'backstop.factor must be a number' })
          .min(1, { error: 'backstop.factor must be at least 1' })
          .max(10, { error: 'backstop.factor must be at most 10' }),
        minBurst: positiveInt('backstop.minBurst'),
        /**
         * The anonymous usage identifier is shared by every caller without a valid key; its
         * backstop is sized for this many of them at their per-IP budget at once.
         */
        anonymousCallers: positiveInt('backstop.anonymousCallers'),
      })
      .strict(),
    messages: z
      .object({
        maxBodyBytes: positiveInt('messages.maxBodyBytes').max(1024 * 1024, {
          error: 'messages.maxBodyBytes must be at most 1048576 (SQS accepts at most 1 MiB)',
        }),
        idempotencyTtlSeconds: positiveInt('messages.idempotencyTtlSeconds'),
        /** How long message records are kept (DynamoDB TTL). */
        retentionDays: positiveInt('messages.retentionDays'),
        /** Receives before a message is dead-lettered. */
        maxReceiveCount: positiveInt('messages.maxReceiveCount').max(1000, {
          error: 'messages.maxReceiveCount must be at most 1000 (the SQS redrive maximum)',
        }),
      })
      .strict(),
    /**
     * The operator's processor (lambda/messages/processor.ts, docs/processor.md): a module path
     * relative to the repository root, bundled into the queue worker.
     */
    processor: z
      .string({ error: 'processor must be a path such as processors/default.ts' })
      .regex(/^(?!\/)(?!.*(^|\/)\.\.(\/|$))[\w./-]+\.(ts|mts|js|mjs)$/, {
        message: 'processor must be a .ts, .mts, .js or .mjs path inside the repository, relative to its root',
      }),
    auth: z
      .object({
        /** Seconds the authorizer keeps a key lookup in memory; revocation reaches the authorizer within this. The limiter refuses revoked keys at once. */
        keyCacheSeconds: z
          .number({ error: 'auth.keyCacheSeconds must be a number' })
          .int({ error: 'auth.keyCacheSeconds must be a whole number' })
          .min(0, { error: 'auth.keyCacheSeconds must be at least 0' })
          .max(300, { error: 'auth.keyCacheSeconds must be at most 300' }),
      })
      .strict(),
    platform: z
      .object({
        domain: domainName,
        region: z.string().superRefine((region, ctx) => {
          if (isKnownRegion(region)) return;
          const suggestion = closestRegion(region);
          ctx.addIssue({
            code: 'custom',
            message: `"${region}" is not an AWS region${suggestion ? ` (did you mean "${suggestion}"?)` : ' such as eu-west-1'}`,
          });
        }),
        /**
         * An existing public hosted zone to put the platform's records in (the zone of the domain
         * or of a parent of it). Without it, the `<prefix>-EdgeZone` stack creates (and retains)
         * a zone for the domain, which must then be delegated at the registrar.
         */
        hostedZone: z
          .object({
            id: z.string().regex(/^Z[A-Z0-9]{1,31}$/, { message: 'must be a Route 53 hosted zone id such as Z0123456789ABCDEFGHIJ' }),
            name: domainName,
          })
          .strict()
          .optional(),
      })
      .strict()
      .refine((p) => !p.hostedZone || p.domain === p.hostedZone.name || p.domain.endsWith(`.${p.hostedZone.name}`), {
        message: 'platform.hostedZone.name must be platform.domain or a parent of it',
      }),
    /** Custom domains after they are live. */
    domains: z
      .object({
        /**
         * Every live domain is re-checked on this schedule (EventBridge Scheduler on AWS, a timer
         * locally). One that no longer points at its target is `dns_misconfigured`; it is served for
         * `gracePeriodDays`, then detached from its project and its tenant released.
         */
        driftCheck: z
          .object({
            intervalMinutes: positiveInt('domains.driftCheck.intervalMinutes').max(24 * 60, {
              error: 'domains.driftCheck.intervalMinutes must be at most 1440 (once a day)',
            }),
            gracePeriodDays: positiveInt('domains.driftCheck.gracePeriodDays').max(90, {
              error: 'domains.driftCheck.gracePeriodDays must be at most 90',
            }),
          })
          .strict(),
      })
      .strict()
      .default(structuredClone(defaultConfig.domains)),
    /**
     * Where the alarms of every stack notify (one SNS topic per environment). Deploy-time only:
     * functions get the config without it (runtimeConfig), so it defaults when absent.
     */
    alarms: z
      .object({
        /** Subscribed to the alarm topic by e-mail (AWS sends a confirmation link first). */
        email: z.email({ error: 'alarms.email must be an e-mail address' }).optional(),
        /** The Messages API's p99 latency above which `ApiLatencyAlarm` fires, in milliseconds. */
        apiLatencyP99ThresholdMs: positiveInt('alarms.apiLatencyP99ThresholdMs')
          .max(29_000, { error: 'alarms.apiLatencyP99ThresholdMs must be at most 29000 (the API Gateway integration timeout)' })
          .optional(),
      })
      .strict()
      .default({}),
    /** Flood protection of the Messages API: what keeps one caller from starving the platform. Deploy-time only, as `alarms`. */
    protection: z
      .object({
        /** AWS WAF rate-based rules on the REST API stage, per client IP, in requests per minute. */
        waf: z
          .object({
            /** Requests without a well-formed `Bearer sk_…` key (anonymous callers, key guessing). */
            anonymousPerIpPerMinute: positiveInt('protection.waf.anonymousPerIpPerMinute').min(10, {
              error: 'protection.waf.anonymousPerIpPerMinute must be at least 10 (the WAF minimum)',
            }),
            /** Every request of one IP, keys included: well above any single plan's per-minute limit. */
            perIpPerMinute: positiveInt('protection.waf.perIpPerMinute').min(10, {
              error: 'protection.waf.perIpPerMinute must be at least 10 (the WAF minimum)',
            }),
          })
          .strict(),
        /** Stage-wide throttling of the Messages API (all callers together), requests per second. */
        stageThrottle: z
          .object({
            rateLimit: positiveInt('protection.stageThrottle.rateLimit'),
            burstLimit: positiveInt('protection.stageThrottle.burstLimit').max(5_000, {
              error: 'protection.stageThrottle.burstLimit must be at most 5000 (API Gateway account burst)',
            }),
          })
          .strict(),
        /**
         * Lambda concurrency reserved for the functions that must keep running during an API
         * flood (0 = none). Reservations need the account's concurrency quota: Lambda keeps 100
         * unreserved, so the sum must stay at or below the quota minus 100.
         */
        reservedConcurrency: z
          .object({
            worker: z.number().int().min(0, { error: 'protection.reservedConcurrency.worker must be at least 0' }),
            domainFlowTask: z.number().int().min(0, { error: 'protection.reservedConcurrency.domainFlowTask must be at least 0' }),
            controlApi: z.number().int().min(0, { error: 'protection.reservedConcurrency.controlApi must be at least 0' }),
          })
          .strict(),
      })
      .strict()
      .refine((p) => p.waf.perIpPerMinute >= p.waf.anonymousPerIpPerMinute, {
        message: 'protection.waf.perIpPerMinute must be at least protection.waf.anonymousPerIpPerMinute',
      })
      .default(structuredClone(defaultConfig.protection)),
    /**
     * How the environment's stacks are deployed and found (docs/operators/operations.md,
     * "Environments"). Deploy-time only, as `alarms`.
     */
    environment: z
      .object({
        /**
         * CloudFormation termination protection on every stack of the environment: a stray
         * `cdk destroy` is refused. Turn off only for throwaway environments (docs/operators/teardown.md).
         */
        terminationProtection: z.boolean({ error: 'environment.terminationProtection must be true or false' }),
        /**
         * Whether this environment's Api stack sets the account's (per region) API Gateway
         * CloudWatch Logs role (`AWS::ApiGateway::Account`). Exactly one environment per account
         * and region may: set it to false for every further environment in that region.
         */
        apiGatewayAccountRole: z.boolean({ error: 'environment.apiGatewayAccountRole must be true or false' }),
        /**
         * Extra tags on every stack and resource (cost centre, owner...), besides `Environment`
         * (the stack prefix) and `Application`, which the platform sets itself.
         */
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
      })
      .strict()
      .default(structuredClone(defaultConfig.environment) as never),
  })
  .strict();

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
