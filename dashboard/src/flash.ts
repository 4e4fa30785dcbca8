import { useEffect, useState } from 'react';

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

/** Starting an action clears the notices and errors of earlier ones (components subscribe with onActionStart). */
const actionListeners = new Set<() => void>();

export function onActionStart(listener: () => void): () => void {
  actionListeners.add(listener);
  return () => actionListeners.delete(listener);
}

export function actionStarted(): void {
  pending = undefined;
  for (const listener of [...actionListeners]) listener();
}
