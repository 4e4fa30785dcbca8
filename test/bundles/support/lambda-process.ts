import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';

const BOOTSTRAP = fileURLToPath(new URL('./bootstrap.mjs', import.meta.url));

/** Lambda's limit on a function's init phase (on-demand). */
const INIT_TIMEOUT_MS = 10_000;

/** Keep the end of a function's output for failure messages (its logs say what went wrong). */
const OUTPUT_TAIL_CHARS = 4_000;

/** A bundle that could not start or answer, named by its function and the missing piece. */
export class BundleError extends Error {
  override name = 'BundleError';
}

/** An error the handler itself threw (Lambda's errorType/errorMessage): the invocation failed, the bundle ran. */
export class HandlerError extends Error {
  override name = 'HandlerError';
  constructor(
    readonly label: string,
    readonly errorType: string,
    readonly errorMessage: string,
  ) {
    super(`${label} bundle: the handler threw ${errorType}: ${errorMessage}`);
  }
}

type ChildMessage =
  | { type: 'ready' } |
  { type: 'init-error'; errorType: string; errorMessage: string; stack: string } |
  { type: 'result'; id: string; value: unknown } |
  { type: 'error'; id: string; errorType: string; errorMessage: string; stack: string };

/** What an init failure says, in the words a reader of the stage needs: which function, what is missing. */
export function initFailure(label: string, errorType: string, errorMessage: string): string {
  const unset = /^Environment variable (\S+) is not set$/.exec(errorMessage);
  if (unset) return `${label} bundle: env ${unset[1]} not set by the stack`;
  const notJson = /^Environment variable (\S+) is not valid JSON$/.exec(errorMessage);
  if (notJson) return `${label} bundle: env ${notJson[1]} set by the stack is not valid JSON`;
  if (errorType === 'Runtime.ImportModuleError') return `${label} bundle: ${errorMessage}`;
  if (errorType === 'Runtime.HandlerNotFound') return `${label} bundle: handler ${errorMessage}`;
  return `${label} bundle: init failed with ${errorType}: ${errorMessage}`;
}

export interface LambdaProcessOptions {
  /** How failures name the function, e.g. `worker`. */
  readonly label: string;
  /** The copied code directory (Lambda's /var/task). */
  readonly codeDir: string;
  readonly handler: string;
  readonly timeoutSeconds: number;
  /** The whole environment of the process: nothing of the test runner's leaks in. */
  readonly env: Readonly<Record<string, string>>;
  readonly invokedFunctionArn: string;
}

/**
 * One function's execution environment: a Node process that imported the bundle (the init phase)
 * and answers invocations one at a time, each bounded by the function's own timeout.
 */
export class LambdaProcess {
  private output = '';
  private exited: string | undefined;
  private readonly waiting = new Map<string, (message: ChildMessage) => void>();

  private constructor(
    private readonly options: LambdaProcessOptions,
    private readonly child: ChildProcess,
  ) {
    const keep = (chunk: Buffer) => {
      this.output = (this.output + chunk.toString('utf8')).slice(-OUTPUT_TAIL_CHARS);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    child.on('message', (message: ChildMessage) => {
      if ('id' in message) this.waiting.get(message.id)?.(message);
    });
    child.on('exit', (code, signal) => {
      this.exited = `exited (${signal ?? `code ${code}`})`;
      for (const [id, settle] of this.waiting) {
        settle({ type: 'error', id, errorType: 'Runtime.ExitError', errorMessage: this.exited, stack: '' });
      }
    });
  }

  /** Starts the process and waits for the bundle's init: resolves when it is ready, or throws a BundleError naming why not. */
  static async start(options: LambdaProcessOptions): Promise<LambdaProcess> {
    const child = spawn(
      process.execPath,
      [BOOTSTRAP, options.codeDir, options.handler, String(options.timeoutSeconds * 1000)],
      { cwd: options.codeDir, env: { ...options.env }, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] },
    );
    const lambda = new LambdaProcess(options, child);
    const init = await new Promise<ChildMessage | 'timeout' | 'exit'>((resolve) => {
      const timer = setTimeout(() => resolve('timeout'), INIT_TIMEOUT_MS);
      child.once('message', (m: ChildMessage) => {
        clearTimeout(timer);
        resolve(m);
      });
      child.once('exit', () => {
        clearTimeout(timer);
        resolve('exit');
      });
    });
    if (typeof init === 'object' && init.type === 'ready') return lambda;
    await lambda.stop();
    let why: string;
    if (init === 'timeout') why = `${options.label} bundle: init did not finish within ${INIT_TIMEOUT_MS / 1000} s`;
    else if (init === 'exit' || init.type !== 'init-error') why = `${options.label} bundle: the process ${lambda.exited ?? 'exited'} during init`;
    else why = initFailure(options.label, init.errorType, init.errorMessage);
    const output = lambda.output.trim();
    throw new BundleError(output ? `${why}\n--- its output ---\n${output}` : why);
  }

  /** The function's stdout and stderr so far (the end of it): its log lines and EMF documents. */
  logs(): string {
    return this.output;
  }

  /** One invocation: the handler's JSON answer, a HandlerError when it threw, a BundleError when the process failed. */
  async invoke<T = unknown>(event: unknown): Promise<T> {
    const { label, timeoutSeconds, invokedFunctionArn } = this.options;
    if (this.exited) throw new BundleError(`${label} bundle: its process ${this.exited}\n${this.output.trim()}`);
    const id = randomUUID();
    const answer = new Promise<ChildMessage | 'timeout'>((resolve) => {
      const timer = setTimeout(() => resolve('timeout'), timeoutSeconds * 1000 + 1_000);
      this.waiting.set(id, (m) => {
        clearTimeout(timer);
        resolve(m);
      });
    });
    const traceId = `Root=1-${Math.floor(Date.now() / 1000).toString(16)}-${randomUUID().replaceAll('-', '').slice(0, 24)};Sampled=0`;
    this.child.send({ type: 'invoke', id, requestId: randomUUID(), traceId, invokedFunctionArn, event });
    const message = await answer;
    this.waiting.delete(id);
    if (message === 'timeout') {
      await this.stop();
      throw new BundleError(`${label} bundle: no answer within the function's timeout (${timeoutSeconds} s)\n${this.output.trim()}`);
    }
    if (message.type === 'result') return message.value as T;
    if (message.type === 'error' && message.errorType === 'Runtime.ExitError') {
      throw new BundleError(`${label} bundle: its process ${message.errorMessage} during an invocation\n${this.output.trim()}`);
    }
    if (message.type === 'error') throw new HandlerError(label, message.errorType, message.errorMessage);
    throw new BundleError(`${label} bundle: unexpected message ${JSON.stringify(message)}`);
  }

  async stop(): Promise<void> {
    if (this.exited || this.child.exitCode !== null || this.child.signalCode !== null) return;
    const gone = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.kill('SIGKILL');
    await gone;
  }
}
