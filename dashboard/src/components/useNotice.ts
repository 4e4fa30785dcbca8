import { useEffect, useState } from 'react';
import { onActionStart } from '../flash';

/**
 * A notice left by an action (a success, a warning): shown until the owner starts the next action
 * anywhere on the page (flash.ts's actionStarted), or until it is set again.
 */
export function useNotice<T>(): [T | undefined, (notice: T | undefined) => void] {
  const [notice, setNotice] = useState<T>();
  useEffect(() => onActionStart(() => setNotice(undefined)), []);
  return [notice, setNotice];
}
