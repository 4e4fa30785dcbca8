import { lstat, readdir, readFile, realpath, stat } from 'node:fs/promises';
import { isAbsolute, join, relative } from 'node:path';
import { type Command, ids, PROGRAM, PROJECT_FLAGS, PROJECT_OPTIONS, PROJECT_REQUIRED, str } from '../command.js';
import type { DeployFileUpload, ProjectView } from '../operator-client.js';
import { domainConfigRows } from '../domain-format.js';
import { usageError } from '../errors.js';
import { clean, keyValues, table } from '../format.js';

const byteCount = (bytes: number): string =>
  bytes < 1024 ? `${bytes} B` : bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KiB` : `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

function projectText(project: ProjectView): string {
  const last = project.lastDeploy;
  const lastText = last
    ? `${last.deployId} ${last.state} ${last.finishedAt ?? last.startedAt}` +
    (last.fileCount !== undefined ? ` (${last.fileCount} files, ${byteCount(last.bytes ?? 0)})` : '') +
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

/**
 * Every regular file under `dir` (recursively) as a deploy upload with its relative POSIX path.
 * Dotfiles and dot-directories (.git, .env…) are left out; a symbolic link is followed only when
 * it stays inside `dir`. A missing, unreadable or empty directory is a usage error.
 */
export async function readSite(dir: string): Promise<{ files: DeployFileUpload[]; bytes: number; skipped: number }> {
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

  const files: DeployFileUpload[] = [];
  const visited = new Set<string>([root]);
  let bytes = 0;
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
        const body = await readFile(target);
        bytes += body.byteLength;
        files.push({ path, content: body.toString('base64') });
      }
    }
  };
  await walk(root, '');
  if (files.length === 0) {
    throw usageError(`${clean(dir)} has no files to deploy${skipped > 0 ? ` (dotfiles and dot-directories are left out)` : ''}`);
  }
  return { files, bytes, skipped };
}

/** `projects create`, `list`, `show` and `deploy` (the local control API only). */
export const PROJECT_COMMANDS: readonly Command[] = [
  {
    words: ['projects', 'create'],
    summary: 'Create a project, served at <slug>.<platform domain> once deployed',
    options: { account: { type: 'string' }, slug: { type: 'string' }, name: { type: 'string' } },
    required: ['account', 'slug'],
    flags: [
      ['--account ID', 'the account id'],
      ['--slug SLUG', '3 to 40 lower-case letters, digits or hyphens; unique platform-wide'],
      ['--name NAME', 'a display name (default: the slug)'],
    ],
    examples: ['projects create --account acct_demo_pro --slug my-site --name "My site"'],
    localOnly: true,
    async run(ctx, values) {
      const name = values.name as string | undefined;
      const project = await ctx.projects().createProject(str(values, 'account'), { slug: str(values, 'slug'), ...(name !== undefined ? { name } : {}) });
      ctx.output(project, `Created project ${project.projectId}. Deploy it with: ${PROGRAM} projects deploy <dir> --account ${project.accountId} --project ${project.projectId}\n${projectText(project)}`);
    },
  },
  {
    words: ['projects', 'list'],
    summary: 'List the projects of an account',
    options: { account: { type: 'string' } },
    required: ['account'],
    flags: [['--account ID', 'the account id']],
    examples: ['projects list --account acct_demo_pro'],
    localOnly: true,
    async run(ctx, values) {
      const projects = await ctx.projects().listProjects(str(values, 'account'));
      ctx.output({ projects }, projectsTable(projects));
    },
  },
  {
    words: ['projects', 'show'],
    summary: 'Show a project: deploy state, live deploy, default URL, domain configuration',
    options: PROJECT_OPTIONS,
    required: PROJECT_REQUIRED,
    flags: PROJECT_FLAGS,
    examples: ['projects show --account acct_demo_pro --project prj_0123456789abcdef0123'],
    localOnly: true,
    async run(ctx, values) {
      const project = await ctx.projects().getProject(...ids(values));
      ctx.output(project, projectText(project));
    },
  },
  {
    words: ['projects', 'deploy'],
    summary: 'Deploy a folder of static files; it goes live only once every file is stored',
    args: [['DIR', 'the folder of the site: every file under it, except dotfiles and dot-directories (.git…)']],
    options: PROJECT_OPTIONS,
    required: PROJECT_REQUIRED,
    flags: PROJECT_FLAGS,
    examples: ['projects deploy ./dist --account acct_demo_pro --project prj_0123456789abcdef0123'],
    localOnly: true,
    async run(ctx, values, [dir]) {
      const site = await readSite(dir as string);
      ctx.io.stderr.write(`Uploading ${site.files.length} file${site.files.length === 1 ? '' : 's'} (${byteCount(site.bytes)}) from ${clean(dir as string)}…\n`);
      const project = await ctx.projects().deploy(...ids(values), site.files);
      ctx.output(project, `Deployed ${project.liveDeployId ?? ''}: ${site.files.length} files, live at ${project.url}\n${projectText(project)}`);
    },
  },
];
