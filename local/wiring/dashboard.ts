import type { ControlServices } from '../../lambda/control/control-router.js';
import { createControlApiHandler } from '../../lambda/control/http-handlers.js';
import type { PlatformConfig } from '../../lib/config/index.js';
import { DASHBOARD_DIST_DIR, type DemoOwner, startLocalDashboard } from '../dashboard.js';
import type { RunningService } from '../emulators.js';

/**
 * The dashboard on 127.0.0.1: the built app, its API through the control API's Lambda handler, and
 * the development sign-in. Added to `services` once it runs; returns its URL.
 */
export async function startDashboard(
  options: {
    readonly controlServices: ControlServices;
    readonly port: number;
    readonly distDir?: string | undefined;
    readonly messagesApiUrl: string;
    /** The local edge, so the app pairs every platform URL with the way that works locally. */
    readonly localEdgeUrl: string;
    /** The local site bucket (s3rver): the pages upload deploy files there. */
    readonly uploadOrigin?: string;
    readonly config: PlatformConfig;
    readonly demoOwners: readonly DemoOwner[];
  },
  services: RunningService[],
): Promise<string> {
  const dashboard = await startLocalDashboard({
    port: options.port,
    distDir: options.distDir ?? DASHBOARD_DIST_DIR,
    handler: createControlApiHandler(options.controlServices),
    messagesApiUrl: options.messagesApiUrl,
    platformDomain: options.config.platform.domain,
    localEdgeUrl: options.localEdgeUrl,
    ...(options.uploadOrigin ? { uploadOrigin: options.uploadOrigin } : {}),
    demoOwners: options.demoOwners,
  });
  services.push({ endpoint: dashboard.url, stop: dashboard.stop });
  return dashboard.url;
}
