import { type DependencyList, useCallback, useEffect, useRef, useState } from 'react';
import { errorMessage } from '../api';

export interface AsyncState<T> {
  readonly data: T | undefined;
  readonly error: string | undefined;
  readonly loading: boolean;
  /** Loads again; keeps the current data while loading. */
  readonly reload: () => Promise<void>;
  /** Loads again as reload does, and rejects when the load failed. */
  readonly refresh: () => Promise<void>;
  readonly setData: (update: (current: T | undefined) => T | undefined) => void;
}

/** Loads data for a page; stale answers (from an older call or after unmount) are dropped. */
export function useAsync<T>(load: () => Promise<T>, deps: DependencyList): AsyncState<T> {
  const [data, setDataState] = useState<T | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [loading, setLoading] = useState(true);
  const generation = useRef(0);
  const stableLoad = useCallback(load, deps);

  const refresh = useCallback(async () => {
    const mine = ++generation.current;
    setLoading(true);
    try {
      const value = await stableLoad();
      if (mine === generation.current) {
        setDataState(value);
        setError(undefined);
      }
    } catch (e) {
      if (mine === generation.current) setError(errorMessage(e));
      throw e;
    } finally {
      if (mine === generation.current) setLoading(false);
    }
  }, [stableLoad]);
  const reload = useCallback(() => refresh().catch(() => undefined), [refresh]);

  useEffect(() => {
    void reload();
    return () => {
      generation.current++;
    };
  }, [reload]);

  const setData = useCallback((update: (current: T | undefined) => T | undefined) => setDataState(update), []);
  return { data, error, loading, reload, refresh, setData };
}
