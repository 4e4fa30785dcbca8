import { useCallback, useEffect, useState } from 'react';
import { errorMessage } from '../api';
import { actionStarted, onActionStart } from '../flash';

export interface ActionState {
  readonly busy: boolean;
  readonly error: string | undefined;
  readonly setError: (message: string | undefined) => void;
  /** Runs one action: busy while it runs, its failure explained (by `describe`) once it ends. */
  readonly run: (work: () => Promise<void>) => Promise<void>;
}

/** A button or form that calls the API: in flight, and why it failed; starting one clears earlier notices. */
export function useAction(describe: (error: unknown) => string = errorMessage): ActionState {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  useEffect(() => onActionStart(() => setError(undefined)), []);
  const run = useCallback(
    async (work: () => Promise<void>) => {
      actionStarted();
      setBusy(true);
      try {
        await work();
      } catch (e) {
        setError(describe(e));
      } finally {
        setBusy(false);
      }
    },
    [describe],
  );
  return { busy, error, setError, run };
}
