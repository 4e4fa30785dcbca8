import { useEffect, useState } from 'react';
import { errorMessage } from './api';

/** A message for the next page, keyed by where it shows: a hash navigation loses component state. */
let pending: { readonly key: string; readonly message: string } | undefined;

export function setFlash(key: string, message: string): void {
  pending = { key, message };
}

/** The message meant for `key`, if any: kept while the page that reads it stays open. */
export function useFlash(key: string): string | undefined {
  const [message] = useState(() => (pending?.key === key ? pending.message : undefined));
  useEffect(() => {
    if (pending?.key === key) pending = undefined;
  }, [key]);
  return message;
}

/** Starting an action clears the notices and errors of earlier ones (useAction, useNotice). */
const actionListeners = new Set<() => void>();

function onActionStart(listener: () => void): () => void {
  actionListeners.add(listener);
  return () => actionListeners.delete(listener);
}

export function actionStarted(): void {
  pending = undefined;
  for (const listener of [...actionListeners]) listener();
}

/** A notice left by an action, shown until the next action starts. */
export function useNotice<T>(): [T | undefined, (notice: T | undefined) => void] {
  const [notice, setNotice] = useState<T>();
  useEffect(() => onActionStart(() => setNotice(undefined)), []);
  return [notice, setNotice];
}

/** A button or form that calls the API: in flight, and why it failed; starting one clears earlier notices. */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  useEffect(() => onActionStart(() => setError(undefined)), []);
  const run = async (work: () => Promise<void>) => {
    actionStarted();
    setBusy(true);
    try {
      await work();
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setBusy(false);
    }
  };
  /** Refuses before any call (a missing input): earlier notices go, this one shows. */
  const refuse = (message: string) => {
    actionStarted();
    setError(message);
  };
  return { busy, error, setError, run, refuse };
}
