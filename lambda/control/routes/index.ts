import type { ControlRoutes } from '../control-router.js';
import { accountRoutes } from './accounts.js';
import { domainRoutes } from './domains.js';
import { keyRoutes } from './keys.js';
import { projectRoutes } from './projects.js';
import { usageRoutes } from './usage.js';
import { webhookRoutes } from './webhooks.js';

/** Every capability's routes of the control API: a capability adds its module here. */
export const CONTROL_ROUTES: readonly ControlRoutes[] = [
  accountRoutes,
  keyRoutes,
  usageRoutes,
  projectRoutes,
  domainRoutes,
  webhookRoutes,
];
