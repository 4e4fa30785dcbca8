import { useEffect, useState } from 'react';
import { errorMessage } from '../api';
import { actionStarted, onActionStart } from '../flash';

/** A button or form that calls the API: in flight, and why it failed; starting one clears earlier notices. */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  useEffect(() => onActionStart(() => setError(undefined)), []);
  /** Runs one action: busy while it runs, its failure explained once it ends. */
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
  return { busy, error, setError, run };
}
