import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ProcessMessage } from '../lambda/messages/processor.js';

/** Why a processor module cannot run, in one line (`npm start` prints it and exits 1). */
export class ProcessorModuleError extends Error {
  override name = 'ProcessorModuleError';
}

/** The operator's processor module (TypeScript through tsx, or JavaScript), as the worker's bundle takes it in. */
export async function loadProcessorModule(file: string): Promise<ProcessMessage> {
  const path = resolve(file);
  if (!existsSync(path)) throw new ProcessorModuleError(`--processor ${file}: no such file (${path})`);
  let loaded: Record<string, unknown>;
  try {
    loaded = (await import(pathToFileURL(path).href)) as Record<string, unknown>;
  } catch (error) {
    // tsx's syntax errors put the location on the second line: keep both, on one line.
    const lines = String((error as Error).message ?? error).split('\n').map((l) => l.trim()).filter(Boolean);
    throw new ProcessorModuleError(`--processor ${file}: the module could not be loaded: ${lines.slice(0, 2).join(' ')}`);
  }
  const processMessage = loaded.processMessage;
  if (typeof processMessage !== 'function') {
    throw new ProcessorModuleError(
      `--processor ${file}: it must export a function processMessage(message, context) (lambda/messages/processor.ts)`,
    );
  }
  return processMessage as ProcessMessage;
}
