import { type DeployCalls, deploySite, type DeployOutcome, type LocalFile, type StartedDeployBody } from '../../contracts/deploys.js';

// Deploys over the control API's HTTP routes, as the CLI and the dashboard make them: the
// manifest, presigned PUTs to the site bucket (s3rver locally), then finalize.

type JsonAnswer = { status: number; body: Record<string, unknown> };
export type FetchJson = (method: string, path: string, body?: unknown) => Promise<JsonAnswer>;

/** The control API at `baseUrl` (the local control port): JSON in and out. */
export function controlFetch(baseUrl: string, headers: Record<string, string> = {}): FetchJson {
  return async (method, path, body) => {
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { ...headers, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
}

/** The two calls of a deploy of the project at `projectPath` (`/accounts/…/projects/…`). */
export function httpDeployCalls(call: FetchJson, projectPath: string): DeployCalls {
  return {
    async start(files) {
      const started = await call('POST', `${projectPath}/deploys`, { files });
      if (started.status !== 201) throw new Error(`deploy refused: ${started.status} ${JSON.stringify(started.body)}`);
      return started.body as unknown as StartedDeployBody;
    },
    async finalize(deployId) {
      const finalized = await call('POST', `${projectPath}/deploys/${deployId}/finalize`);
      if (finalized.status === 409 && finalized.body.code === 'files_missing') {
        return { missing: finalized.body.uploads as never };
      }
      if (finalized.status !== 200) throw new Error(`finalize refused: ${finalized.status} ${JSON.stringify(finalized.body)}`);
      return { deploy: finalized.body };
    },
  };
}

export const htmlFile = (html: string, path = 'index.html'): LocalFile => ({ path, body: new TextEncoder().encode(html) });

/** Deploys `files` (or one index.html) to the project at `projectPath` through the local control port. */
export function deployOverHttp(
  controlUrl: string,
  projectPath: string,
  files: readonly LocalFile[] | string,
): Promise<DeployOutcome> {
  const list = typeof files === 'string' ? [htmlFile(files)] : files;
  return deploySite(httpDeployCalls(controlFetch(controlUrl), projectPath), list);
}
