import { useEffect, useState } from 'react';
import { onActionStart } from '../flash';

/** A notice left by an action, shown until the next action starts (flash.ts's actionStarted). */
export function useNotice<T>(): [T | undefined, (notice: T | undefined) => void] {
  const [notice, setNotice] = useState<T>();
  useEffect(() => onActionStart(() => setNotice(undefined)), []);
  return [notice, setNotice];
}
