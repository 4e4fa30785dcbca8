import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Browser, Page, Request, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../support/platform.js';
import {
  buildDashboard, http, launchBrowser, newContext, PHONE_WIDTH, pageWidth, screenshot, screenshotOf, unnamedControls,
  watchErrors,
} from './support.js';

// On AWS the dashboard is an owner's only way to publish: through the UI only, a new owner
// creates a project and deploys a folder from the browser, and the local edge serves it on the
// project's default host. A taken slug gets the service's explanation; a folder without an
// index.html is refused in the page, without a request.
const OWNER = 'site.owner@example.test';
const SLUG = 'my-portfolio';
const HOST = `${SLUG}.platform.example.com`;
const MARKER = 'Deployed from the dashboard browser test';

let platform: TestPlatform;
let browser: Browser;
let page: Page;
let errors: string[];
let work: string;
let siteDir: string;
let noIndexDir: string;
/** Deploy requests the page sent (a refused selection must send none). */
const deployRequests: string[] = [];

/** The local edge, with a Host header (fetch cannot set Host; node:http can). */
const edge = (path = '/') => http(`${platform.edgeUrl}${path}`, { headers: { Host: HOST } });

function writeTree(root: string, files: Record<string, string>) {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
}

const deploySection = () => page.getByRole('group', { name: 'Deploy a new version' });

beforeAll(async () => {
  const distDir = await buildDashboard();
  platform = await startTestPlatform({ dashboard: { port: 0, distDir }, demoProject: true });
  if (!platform.dashboardUrl) throw new Error('the platform did not start the dashboard');
  browser = await launchBrowser();
  page = await (await newContext(browser, platform.dashboardUrl)).newPage();
  errors = watchErrors(page);
  page.on('request', (request: Request) => {
    if (request.method() === 'POST' && /\/deploys$/.test(new URL(request.url()).pathname)) deployRequests.push(request.url());
  });

  work = mkdtempSync(join(tmpdir(), 'dashboard-deploy-'));
  siteDir = join(work, 'site');
  writeTree(siteDir, {
    'index.html': `<!doctype html><html><head><link rel="stylesheet" href="/assets/app.css"></head><body><h1>${MARKER}</h1></body></html>`,
    'assets/app.css': 'h1 { color: rebeccapurple; }\n',
    'about/index.html': '<!doctype html><title>About</title><p>About page</p>',
  });
  noIndexDir = join(work, 'build');
  writeTree(noIndexDir, {
    'readme.txt': 'not a site',
    'public/index.html': '<p>one level too deep</p>',
  });
});

afterAll(async () => {
  await browser?.close();
  await platform?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('creating and deploying a project from the dashboard', () => {
  it('a new owner finds the New project form on the Projects page, with the slug rules and the default URL', async () => {
    await page.goto('/');
    await page.getByRole('heading', { name: 'Development sign-in' }).waitFor();
    await page.getByLabel('Email').fill(OWNER);
    await page.getByLabel('Email').press('Enter');
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Projects' }).click();
    await page.getByRole('heading', { name: 'Projects', level: 1 }).waitFor();
    await page.getByText('No projects yet.').waitFor();

    const form = page.getByRole('region', { name: 'New project' });
    // The slug follows the name until it is typed; the default URL follows the slug, on the
    // platform's domain from config.json (a new owner has no project to read it from).
    await form.getByLabel('Name').fill('My Portfolio');
    expect(await form.getByLabel('Slug').inputValue()).toBe(SLUG);
    expect(await form.getByText('Default URL:').textContent()).toContain(`https://${SLUG}.${platform.config.platform.domain}`);
    expect(await form.getByText('3 to 40 lower-case letters, digits or hyphens').isVisible()).toBe(true);
    // The rules and the URL are the slug field's description (read with it by screen readers).
    const described = await form.getByLabel('Slug').getAttribute('aria-describedby');
    expect(described?.split(' ')).toHaveLength(2);
    expect(await unnamedControls(page)).toEqual([]);
    await screenshotOf(form, '13-new-project-form');
  });

  it('shows the service’s explanation next to the form: a slug that is taken, a slug that breaks the rules', async () => {
    const form = page.getByRole('region', { name: 'New project' });
    const slug = form.getByLabel('Slug');
    await slug.fill('demo'); // the Pro demo account's project
    await form.getByRole('button', { name: 'Create project' }).click();
    const alert = form.getByRole('alert');
    await alert.getByText('The slug demo is taken; choose another.').waitFor();
    expect(await slug.getAttribute('aria-invalid')).toBe('true');
    expect(await page.evaluate('document.activeElement?.id')).toBe('project-slug');
    await screenshotOf(form, '14-new-project-slug-taken');

    await slug.fill('-portfolio');
    await form.getByRole('button', { name: 'Create project' }).click();
    await alert.getByText('slug must be 3 to 40 lower-case letters, digits or hyphens').waitFor();
    expect(await page.getByRole('heading', { name: 'Projects', level: 1 }).isVisible()).toBe(true);
  });

  it('creates the project and goes to its settings, which say how to publish it', async () => {
    const form = page.getByRole('region', { name: 'New project' });
    await form.getByLabel('Slug').fill(SLUG);
    await form.getByRole('button', { name: 'Create project' }).click();
    await page.getByRole('heading', { name: 'My Portfolio: settings', level: 1 }).waitFor();
    expect(await page.getByRole('status').filter({ hasText: 'Project My Portfolio is created.' }).textContent())
      .toContain(`publish it at ${HOST}`);
    const general = page.getByRole('region', { name: 'General' });
    expect(await general.getByRole('link', { name: `https://${HOST}/` }).isVisible()).toBe(true);
    expect(await general.getByText('(not live yet)').isVisible()).toBe(true);
    expect(await page.getByRole('region', { name: 'Deploys' }).locator('.badge').textContent()).toContain('Not deployed');
    // Nothing is served before the first deploy.
    expect((await edge()).status).toBe(404);
  });

  it('refuses a folder without an index.html at its top in the page, without sending a request', async () => {
    await deploySection().getByLabel('Choose a folder').setInputFiles(noIndexDir);
    const problem = deploySection().getByRole('alert').filter({ hasText: 'This cannot be deployed' });
    await problem.waitFor();
    expect(await problem.textContent()).toContain('The folder “build” has no index.html at its top level.');
    expect(await problem.textContent()).toContain('There is one in build/public: choose that folder?');
    expect(await deploySection().getByText('Folder build: 2 files').isVisible()).toBe(true);
    await deploySection().getByRole('button', { name: 'Deploy', exact: true }).click();
    await deploySection().getByText('This selection cannot be deployed: see why above.').waitFor();
    expect(deployRequests).toEqual([]);
    expect(await unnamedControls(page)).toEqual([]);
    await screenshotOf(deploySection(), '15-deploy-no-index-refused');
  });

  it('refuses a file over 25 MB in the page, without a request', async () => {
    const big = join(work, 'big');
    writeTree(big, { 'index.html': '<!doctype html><p>big</p>' });
    writeFileSync(join(big, 'video.mp4'), Buffer.alloc(25 * 1024 * 1024 + 1, 7));
    await deploySection().getByLabel('Choose a folder').setInputFiles(big);
    const problem = deploySection().getByRole('alert').filter({ hasText: 'This cannot be deployed' });
    await problem.waitFor();
    expect(await problem.textContent()).toContain('“video.mp4” is 26.21 MB; a file may be at most 25 MB.');
    await deploySection().getByRole('button', { name: 'Deploy', exact: true }).click();
    await deploySection().getByText('This selection cannot be deployed: see why above.').waitFor();
    expect(deployRequests).toEqual([]);
  });

  it('deploys a folder: lists its files without the folder’s name, shows progress, then the live deploy and its URL', async () => {
    await deploySection().getByLabel('Choose a folder').setInputFiles(siteDir);
    const section = deploySection();
    await section.getByText('Folder site: 3 files').waitFor();
    expect(await section.getByRole('alert').filter({ hasText: 'This cannot be deployed' }).count()).toBe(0);
    expect(await section.locator('.file-list code').allTextContents()).toEqual(['about/index.html', 'assets/app.css', 'index.html']);
    expect(await section.locator('.deploy-status').textContent()).toMatch(/^3 files chosen, \d+(\.\d)? KB\.$|^3 files chosen, \d+ B\.$/);
    await screenshotOf(section, '16-deploy-folder-chosen');

    // Hold the request until the page has shown its progress (else it may be over too soon to see).
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    await page.route('**/deploys', async (route: Route) => {
      await held;
      await route.continue();
    });
    await section.getByRole('button', { name: 'Deploy', exact: true }).click();
    const progress = section.locator('.deploy-status').filter({ hasText: 'Deploying…' });
    await progress.waitFor();
    expect(await section.getByRole('button', { name: 'Deploying…' }).getAttribute('aria-disabled')).toBe('true');
    expect(await progress.getAttribute('aria-live')).toBe('polite');
    await screenshotOf(section, '16b-deploying');
    release();

    const notice = section.locator('.notice-success');
    await notice.getByText('Deploy succeeded: your site is live').waitFor();
    await page.unroute('**/deploys');
    expect(deployRequests).toHaveLength(1);
    // Announced in the live region (its text is for screen readers: the notice shows it).
    expect(await section.locator('.deploy-status').textContent()).toBe(`Deploy succeeded. Your site is live at https://${HOST}/`);
    expect(await notice.locator('.badge').textContent()).toContain('Deployed');
    expect(await notice.locator('.deploy-result code').textContent()).toMatch(/^dep_[0-9A-Z]{26}$/);
    expect(await notice.locator('time').getAttribute('datetime')).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(await notice.getByText('3 files, ', { exact: false }).isVisible()).toBe(true);
    // The first deploy uploads every file; none was stored before.
    expect(await notice.getByText('3 files (', { exact: false }).isVisible()).toBe(true);
    expect(await notice.getByRole('link', { name: `https://${HOST}/` }).getAttribute('href')).toBe(`https://${HOST}/`);
    // The page's own facts follow: badge and the last deploy.
    const deploys = page.getByRole('region', { name: 'Deploys' });
    expect(await deploys.locator('.card-head .badge').textContent()).toContain('Deployed');
    expect(await page.getByRole('region', { name: 'General' }).getByText('(not live yet)').count()).toBe(0);
    expect(await unnamedControls(page)).toEqual([]);
    await screenshot(page, '17-deploy-succeeded');
    await screenshotOf(section, '17b-deploy-result');
  });

  it('the local edge serves the deployed site on the project’s default host', async () => {
    const home = await edge('/');
    expect(home.status).toBe(200);
    expect(home.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(home.body).toContain(`<h1>${MARKER}</h1>`);
    const css = await edge('/assets/app.css');
    expect(css.status).toBe(200);
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
    expect((await edge('/about')).body).toContain('About page');
  });

  it('deploys chosen files (not a folder) as a new version, and the edge switches to it', async () => {
    const v2 = join(work, 'v2');
    writeTree(v2, { 'index.html': '<!doctype html><h1>Version two</h1>', 'logo.svg': '<svg xmlns="http://www.w3.org/2000/svg"/>' });
    // Files without an index.html are refused too.
    await deploySection().getByLabel('Choose files').setInputFiles([join(v2, 'logo.svg')]);
    await deploySection().getByRole('alert').filter({ hasText: 'There is no index.html among these files.' }).waitFor();
    expect(deployRequests).toHaveLength(1);

    await deploySection().getByLabel('Choose files').setInputFiles([join(v2, 'index.html'), join(v2, 'logo.svg')]);
    await deploySection().getByText('Chosen files: 2 files').waitFor();
    await deploySection().getByRole('button', { name: 'Deploy', exact: true }).click();
    await deploySection().getByText('Deploy succeeded: your site is live').waitFor();
    expect(deployRequests).toHaveLength(2);
    expect((await edge('/')).body).toContain('Version two');
    expect((await edge('/logo.svg')).headers['content-type']).toBe('image/svg+xml');
    expect((await edge('/assets/app.css')).status).toBe(404); // the previous version's files are not in this one

    // The pickers are reachable with the keyboard, and the focused one shows it on its label.
    await deploySection().getByRole('button', { name: 'Deploy', exact: true }).focus();
    await page.keyboard.press('Shift+Tab');
    expect(await page.evaluate('document.activeElement?.id')).toBe('deploy-files');
    expect(await page.evaluate(`getComputedStyle(document.querySelector('label[for="deploy-files"]')).outlineStyle`)).toBe('solid');
  });

  it('explains a deploy the service refuses, and says the live version is unchanged', async () => {
    // A storage failure cannot be caused through the UI: the service's answer to one is played back.
    await page.route('**/deploys', (route: Route) => route.fulfill({
      status: 502,
      contentType: 'application/problem+json',
      body: JSON.stringify({
        status: 502,
        title: 'Bad Gateway',
        code: 'deploy_failed',
        detail: 'Deploy dep_01TEST failed and the live version is unchanged. Retry the deploy.',
        requestId: 'req-browser-test',
      }),
    }));
    await deploySection().getByLabel('Choose a folder').setInputFiles(siteDir);
    await deploySection().getByRole('button', { name: 'Deploy', exact: true }).click();
    const failure = deploySection().getByRole('alert').filter({ hasText: 'The deploy failed' });
    await failure.waitFor();
    expect(await failure.textContent()).toContain('Deploy dep_01TEST failed and the live version is unchanged. Retry the deploy.');
    expect(await failure.textContent()).toContain('request ID req-browser-test');
    await page.unroute('**/deploys');
    expect((await edge('/')).body).toContain('Version two');
    await screenshotOf(deploySection(), '17c-deploy-failed');
  });

  it('lists the project, live, with its default URL (the platform’s domain is known from now on)', async () => {
    await page.getByRole('navigation', { name: 'Breadcrumb' }).getByRole('link', { name: 'Projects' }).click();
    const card = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: 'My Portfolio' }) });
    await card.waitFor();
    expect(await card.getByText('Deployed').isVisible()).toBe(true);
    expect(await card.getByRole('link', { name: HOST, exact: true }).getAttribute('href')).toBe(`https://${HOST}/`);
    const form = page.getByRole('region', { name: 'New project' });
    await form.getByLabel('Slug').fill('blog');
    expect(await form.getByText('Default URL:').textContent()).toContain('https://blog.platform.example.com');
  });

  it('fits a phone screen: the form and the deploy section', async () => {
    const phone = await (await newContext(browser, platform.dashboardUrl ?? '', true)).newPage();
    const phoneErrors = watchErrors(phone);
    await phone.goto('/');
    await phone.getByLabel('Email').fill(OWNER);
    await phone.getByLabel('Email').press('Enter');
    await phone.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    await phone.getByRole('link', { name: 'Projects' }).click();
    await phone.getByRole('region', { name: 'New project' }).waitFor();
    let width = await pageWidth(phone);
    expect(width.width, width.overflowing.join('\n')).toBe(PHONE_WIDTH);
    await screenshot(phone, '18a-phone-projects');
    await phone.getByRole('link', { name: 'Settings of My Portfolio' }).click();
    const section = phone.getByRole('group', { name: 'Deploy a new version' });
    await section.getByLabel('Choose a folder').setInputFiles(siteDir);
    await section.getByText('Folder site: 3 files').waitFor();
    width = await pageWidth(phone);
    expect(width.width, width.overflowing.join('\n')).toBe(PHONE_WIDTH);
    await screenshot(phone, '18-phone-deploy');
    await phone.context().close();
    expect(phoneErrors.filter((e) => !/status of 4\d\d/.test(e))).toEqual([]);
  });

  it('logged no app errors', () => {
    // Chromium logs fetch answers of 4xx as console errors (the refused slugs), and the 502 played
    // back above; those are expected.
    expect(errors.filter((e) => !/status of (4\d\d|502 \(Bad Gateway\))/.test(e))).toEqual([]);
  });
});
