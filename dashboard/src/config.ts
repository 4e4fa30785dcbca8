import * as z from 'zod/mini';
import { PLAN_IDS } from '../../contracts/plans';

/** A URL without its trailing slashes. */
const base = z.pipe(z.string(), z.transform((url) => url.replace(/\/+$/, '')));

const authSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('dev'),
    demoOwners: z._default(z.array(z.object({ email: z.string(), plan: z.enum(PLAN_IDS) })), []),
  }),
  z.object({
    kind: z.literal('cognito'),
    domain: base,
    clientId: z.string(),
    scopes: z.pipe(
      z._default(z.array(z.string()), []),
      z.transform((scopes) => (scopes.length > 0 ? scopes : ['openid', 'email', 'profile'])),
    ),
  }),
]);

/** /config.json, served next to the app (locally by the platform, on AWS from the bucket). */
const configSchema = z.object({
  apiBaseUrl: base,
  messagesApiUrl: z._default(base, ''),
  /** Projects are served at `<slug>.<platformDomain>`. */
  platformDomain: z.optional(z.string()),
  /** Only on the local platform: its edge, which also serves every platform host as `<host>.localhost`. */
  localEdgeUrl: z.optional(base),
  auth: authSchema,
});

export type RuntimeConfig = z.infer<typeof configSchema>;

export async function loadConfig(): Promise<RuntimeConfig> {
  const res = await fetch(new URL('config.json', document.baseURI), { cache: 'no-store' });
  if (!res.ok) throw new Error(`config.json could not be loaded (HTTP ${res.status})`);
  const parsed = configSchema.safeParse(await res.json());
  if (!parsed.success) throw new Error(`config.json is not valid: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}
