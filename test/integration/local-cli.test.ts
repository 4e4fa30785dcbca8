import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

// `npm start` as a user runs it: bin/local.ts in its own process, flags, printed keys, signals.
const dir = mkdtempSync(join(tmpdir(), 'local-cli-'));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

function start(args: string[]): { child: ChildProcess; output: () => string; ready: Promise<string> } {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bin/local.ts', ...args], {
    cwd: process.cwd(),
    env: { ...process.env, CI: 'true' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  const ready = new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /Messages API running at (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match?.[1] && output.includes('Press Ctrl+C to stop.')) resolve(match[1]);
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`exited with ${code} before it was ready:\n${output}`)));
  });
  return { child, output: () => output, ready };
}

const exited = (child: ChildProcess) =>
  new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );

describe('npm start (bin/local.ts)', () => {
  it('serves the API at the root on the given port, writes the demo keys, and stops cleanly on SIGTERM', async () => {
    const keysFile = join(dir, 'keys.json');
    const port = 20_000 + Math.floor(Math.random() * 20_000);
    const run = start(['--port', String(port), '--keys-out', keysFile]);
    const baseUrl = await run.ready;
    expect(baseUrl).toBe(`http://127.0.0.1:${port}`);
    const bootMs = Number(/ready in (\d+) ms/.exec(run.output())?.[1]);
    console.log(`local platform boot: ${bootMs} ms`);

    const keys = JSON.parse(readFileSync(keysFile, 'utf8')) as Record<string, string>;
    expect(Object.keys(keys).sort()).toEqual(['business', 'enterprise', 'free', 'pro']);
    for (const [plan, key] of Object.entries(keys)) {
      expect(key).toMatch(/^sk_live_[0-9A-Za-z]{36}$/);
      expect(run.output()).toContain(key);
      const answer = await fetch(`${baseUrl}/messages`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ message: `hello from ${plan}` }),
      });
      expect(answer.status).toBe(202);
    }

    const exit = exited(run.child);
    run.child.kill('SIGTERM');
    expect(await exit).toEqual({ code: 0, signal: null });
    expect(run.output()).toContain('SIGTERM: stopping');
    await expect(fetch(`${baseUrl}/messages`)).rejects.toThrow();
  });

  it('stops cleanly on SIGINT', async () => {
    const run = start(['--port', '0']);
    await run.ready;
    const exit = exited(run.child);
    run.child.kill('SIGINT');
    expect(await exit).toEqual({ code: 0, signal: null });
  });

  it('refuses a bad flag value with a usage message and exit code 2', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'bin/local.ts', '--port', 'eighty'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let stderr = '';
    child.stderr?.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    expect((await exited(child)).code).toBe(2);
    expect(stderr).toContain('--port must be a port number');
  });
});
