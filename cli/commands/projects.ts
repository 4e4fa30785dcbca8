import { lstat, readdir, readFile, realpath, stat } from 'node:fs/promises';
import { isAbsolute, join, relative } from 'node:path';
import {
  ACCOUNT_FLAG,
  accountParams,
  type Command,
  ON_ACCOUNT,
  ON_PROJECT,
  PROGRAM,
  PROJECT_FLAGS,
  PROJECT_REQUIRED,
  projectParams,
  str,
} from '../command.js';
import { deploySite, type LocalFile, type UploadInstruction } from '../../contracts/deploys.js';
import type { DeployListing, ProjectView } from '../operator-client.js';
import { domainConfigRows } from '../domain-format.js';
import { usageError } from '../errors.js';
import { clean, keyValues, table } from '../format.js';

const byteCount = (bytes: number): string =>
  bytes < 1024 ? `${bytes} B` : bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KiB` : `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

function projectText(project: ProjectView): string {
  const last = project.lastDeploy;
  const lastText = last
    ? `${last.deployId} ${last.state} ${last.finishedAt ?? last.startedAt}` +
    ` (${last.fileCount} files, ${byteCount(last.bytes)}, by ${last.by})` +
    (last.error ? `: ${last.error}` : '')
    : undefined;
  return keyValues([
    ['project', project.projectId],
    ['account', project.accountId],
    ['slug', project.slug],
    ['name', project.name],
    ['url', project.liveDeployId ? project.url : `${project.url} (served after the first successful deploy)`],
    ['deploy state', project.deployState],
    ['live deploy', project.liveDeployId],
    ['last deploy', lastText],
    ...domainConfigRows(project.domains),
    ['created', project.createdAt],
  ]);
}

function projectsTable(projects: readonly ProjectView[]): string {
  if (projects.length === 0) return 'No projects.\n';
  return table(
    ['ID', 'SLUG', 'NAME', 'DEPLOY', 'LIVE DEPLOY', 'URL', 'CREATED'],
    projects.map((p) => [p.projectId, p.slug, p.name, p.deployState, p.liveDeployId, p.url, p.createdAt]),
  );
}

/** Every file under `dir` but dotfiles and dot-directories; a symbolic link only when it stays inside `dir`. */
export async function readSite(dir: string): Promise<{ files: LocalFile[]; bytes: number; skipped: number }> {
  let info;
  try {
    info = await stat(dir);
  } catch (error) {
    const code = (error as { code?: string }).code;
    throw usageError(code === 'ENOENT' ? `no directory ${clean(dir)}` : `cannot read ${clean(dir)} (${code ?? String(error)})`);
  }
  if (!info.isDirectory()) throw usageError(`${clean(dir)} is not a directory: projects deploy takes the folder of the site`);
  const root = await realpath(dir);
  const inside = (path: string) => {
    const rel = relative(root, path);
    return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
  };

  const files: LocalFile[] = [];
  const visited = new Set<string>([root]);
  let skipped = 0;
  const walk = async (real: string, prefix: string): Promise<void> => {
    const entries = await readdir(real, { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (entry.name.startsWith('.')) {
        skipped++;
        continue;
      }
      const path = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
      let target = join(real, entry.name);
      let kind = await lstat(target);
      if (kind.isSymbolicLink()) {
        let resolved;
        try {
          resolved = await realpath(target);
        } catch {
          throw usageError(`${clean(path)} in ${clean(dir)} is a broken symbolic link`);
        }
        if (!inside(resolved)) {
          throw usageError(`${clean(path)} in ${clean(dir)} is a symbolic link to ${clean(resolved)}, outside the folder: refusing to upload it`);
        }
        target = resolved;
        kind = await stat(resolved);
      }
      if (kind.isDirectory()) {
        if (visited.has(target)) continue; // a link back up the tree
        visited.add(target);
        await walk(target, path);
      } else if (kind.isFile()) {
        files.push({ path, body: await readFile(target) });
      }
    }
  };
  await walk(root, '');
  if (files.length === 0) {
    throw usageError(`${clean(dir)} has no files to deploy${skipped > 0 ? ` (dotfiles and dot-directories are left out)` : ''}`);
  }
  return { files, bytes: files.reduce((sum, f) => sum + f.body.byteLength, 0), skipped };
}

export const PROJECT_COMMANDS: readonly Command[] = [
  {
    words: ['projects', 'create'],
    summary: 'Create a project, served at <slug>.<platform domain> once deployed',
    required: ['account', 'slug'],
    flags: [
      ACCOUNT_FLAG,
      ['--slug SLUG', '3 to 40 lower-case letters, digits or hyphens; unique platform-wide'],
      ['--name NAME', 'a display name (default: the slug)'],
    ],
    examples: ['projects create --account acct_demo_pro --slug my-site --name "My site"'],
    localOnly: true,
    async run(ctx, values) {
      const body = { slug: str(values, 'slug'), name: values.name as string | undefined };
      const project = await ctx.projects().call((api) =>
        api.POST('/accounts/{accountId}/projects', { ...accountParams(values), body }));
      ctx.output(project, `Created project ${project.projectId}. Deploy it with: ${PROGRAM} projects deploy <dir> --account ${project.accountId} --project ${project.projectId}\n${projectText(project)}`);
    },
  },
  {
    words: ['projects', 'list'],
    summary: 'List the projects of an account',
    ...ON_ACCOUNT,
    examples: ['projects list --account acct_demo_pro'],
    localOnly: true,
    async run(ctx, values) {
      const projects = await ctx.projects().list('projects', (api) =>
        api.GET('/accounts/{accountId}/projects', accountParams(values)));
      ctx.output({ projects }, projectsTable(projects));
    },
  },
  {
    words: ['projects', 'show'],
    summary: 'Show a project: deploy state, live deploy, default URL, domain configuration',
    ...ON_PROJECT,
    examples: ['projects show --account acct_demo_pro --project prj_0123456789abcdef0123'],
    async run(ctx, values) {
      const project = await ctx.projects().call((api) =>
        api.GET('/accounts/{accountId}/projects/{projectId}', projectParams(values)));
      ctx.output(project, projectText(project));
    },
  },
  {
    words: ['projects', 'deploy'],
    summary: 'Deploy a folder of static files; it goes live only once every file is stored',
    args: [['DIR', 'the folder of the site: every file under it, except dotfiles and dot-directories (.git…)']],
    ...ON_PROJECT,
    examples: ['projects deploy ./dist --account acct_demo_pro --project prj_0123456789abcdef0123'],
    async run(ctx, values, [dir]) {
      const site = await readSite(dir as string);
      const client = ctx.projects();
      const params = projectParams(values);
      ctx.io.stderr.write(`Deploying ${site.files.length} file${site.files.length === 1 ? '' : 's'} (${byteCount(site.bytes)}) from ${clean(dir as string)}…\n`);
      const { deployId, deploy, uploadedFiles, uploadedBytes, skipped } = await deploySite({
        start: (files) => client.call((api) =>
          api.POST('/accounts/{accountId}/projects/{projectId}/deploys', { ...params, body: { files: [...files] } })),
        // A files_missing refusal is an answer: it carries fresh URLs for what is missing.
        finalize: async (deployId) => {
          const path = '/accounts/{accountId}/projects/{projectId}/deploys/{deployId}/finalize';
          const sent = await client.call((api) => api.POST(path, projectParams(values, { deployId })), 'files_missing');
          const answer = sent as { code?: string; uploads?: UploadInstruction[] };
          return answer.code === 'files_missing' ? { missing: answer.uploads ?? [] } : { deploy: answer };
        },
      }, site.files);
      ctx.io.stderr.write(`Uploaded ${uploadedFiles} file${uploadedFiles === 1 ? '' : 's'} (${byteCount(uploadedBytes)}); ${skipped} unchanged skipped.\n`);
      const project = await client.call((api) => api.GET('/accounts/{accountId}/projects/{projectId}', params));
      ctx.output(
        { ...project, deploy, uploadedFiles, uploadedBytes, skipped },
        `Deployed ${deployId}: ${site.files.length} files, live at ${project.url}\n${projectText(project)}`,
      );
    },
  },
  {
    words: ['projects', 'deploys'],
    summary: 'List a project\'s deploys (the last 20): when, by whom, files, size, status, which is live',
    ...ON_PROJECT,
    examples: ['projects deploys --account acct_demo_pro --project prj_0123456789abcdef0123'],
    async run(ctx, values) {
      const deploys = await ctx.projects().list('deploys', (api) =>
        api.GET('/accounts/{accountId}/projects/{projectId}/deploys', projectParams(values)));
      ctx.output({ deploys }, deploysTable(deploys));
    },
  },
  {
    words: ['projects', 'rollback'],
    summary: 'Serve an earlier successful deploy again, from the next request (nothing is uploaded)',
    args: [['DEPLOY', 'the deploy id (projects deploys lists them)']],
    ...ON_PROJECT,
    examples: ['projects rollback dep_0123456789abcdef0123 --account acct_demo_pro --project prj_0123456789abcdef0123'],
    async run(ctx, values, [deployId]) {
      const params = projectParams(values, { deployId: deployId as string });
      const deploy = await ctx.projects().call((api) =>
        api.POST('/accounts/{accountId}/projects/{projectId}/deploys/{deployId}/rollback', params));
      ctx.output(deploy, `Serving ${deploy.deployId} (${deploy.fileCount} files, deployed ${deploy.startedAt}).\n`);
    },
  },
  {
    words: ['projects', 'rename'],
    summary: 'Rename a project (its slug, and so its address, stay)',
    ...ON_PROJECT,
    required: [...PROJECT_REQUIRED, 'name'],
    flags: [...PROJECT_FLAGS, ['--name NAME', 'the new display name']],
    examples: ['projects rename --account acct_demo_pro --project prj_0123456789abcdef0123 --name "Shop"'],
    async run(ctx, values) {
      const init = { ...projectParams(values), body: { name: str(values, 'name') } };
      const project = await ctx.projects().call((api) => api.PATCH('/accounts/{accountId}/projects/{projectId}', init));
      ctx.output(project, projectText(project));
    },
  },
  {
    words: ['projects', 'delete'],
    summary: 'Delete a project: its custom domains are released, its files removed, its slug held for 30 days',
    ...ON_PROJECT,
    examples: ['projects delete --account acct_demo_pro --project prj_0123456789abcdef0123'],
    async run(ctx, values) {
      const deleted = await ctx.projects().call((api) =>
        api.DELETE('/accounts/{accountId}/projects/{projectId}', projectParams(values)));
      const released = deleted.releasedDomains.length > 0 ? `Released ${deleted.releasedDomains.join(', ')}. ` : '';
      ctx.output(deleted, `Deleted ${deleted.projectId}. ${released}Its slug is held until ${deleted.slugHeldUntil}.\n`);
    },
  },
];

function deploysTable(deploys: readonly DeployListing[]): string {
  if (deploys.length === 0) return 'No deploys.\n';
  return table(
    ['ID', 'STATE', 'LIVE', 'STARTED', 'BY', 'FILES', 'SIZE', 'UPLOADED'],
    deploys.map((d) => [d.deployId, d.state, d.live ? 'live' : '', d.startedAt, d.by, String(d.fileCount), byteCount(d.bytes), byteCount(d.uploadBytes)]),
  );
}
