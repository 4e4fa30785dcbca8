// Names for the control API's generated schemas (contracts/openapi/control-api.ts), never a copy of one.
import type { components } from '../../contracts/openapi/control-api';

export type Schemas = components['schemas'];

export type Account = Schemas['Account'];
export type Plan = Schemas['Plan'];
export type Key = Schemas['Key'];
export type Deploy = Schemas['Deploy'];
export type RedirectStatus = Schemas['RedirectStatus'];
export type DomainConfig = Schemas['DomainConfig'];
export type Project = Schemas['Project'];
export type Domain = Schemas['Domain'];

/** The redirect statuses offered in the form, in order (every value of the document's enum). */
export const REDIRECT_STATUSES = [301, 302, 307, 308] as const satisfies readonly RedirectStatus[];
