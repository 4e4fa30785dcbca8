// The slug rule, shared with the dashboard's New project form (so both refuse the same, in the same
// words): no imports, it is bundled for Node and for the browser.

/** A DNS label of 3 to 40 characters: lower-case letters, digits and inner hyphens. */
const SLUG = /^[a-z0-9](?:[a-z0-9-]{1,38}[a-z0-9])$/;

/** Names the platform keeps for its own hosts (`www.<platform domain>`, …). */
export const RESERVED_SLUGS: ReadonlySet<string> = new Set([
  'www', 'api', 'edge', 'app', 'admin', 'dashboard', 'mail', 'status', 'docs', 'static', 'cdn',
]);

export const SLUG_RULE =
  'The slug must be 3 to 40 lower-case letters, digits or hyphens, not starting or ending with a hyphen.';

export type SlugCheck =
  | { readonly ok: true; readonly slug: string } |
  { readonly ok: false; readonly slug: string; readonly code: 'invalid_request' | 'slug_taken'; readonly message: string };

/** The slug as it will be stored (trimmed, lower-cased), or why it is refused. */
export function checkSlug(input: string): SlugCheck {
  const slug = input.trim().toLowerCase();
  if (!SLUG.test(slug)) return { ok: false, slug, code: 'invalid_request', message: SLUG_RULE };
  if (RESERVED_SLUGS.has(slug)) {
    return { ok: false, slug, code: 'slug_taken', message: `The slug ${slug} is reserved by the platform.` };
  }
  return { ok: true, slug };
}
