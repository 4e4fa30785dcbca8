import type { ReactNode } from 'react';
import { Badge } from '../../components/Badge';

/** One step of getting started: its number, its state in an icon and a word, and what to do. */
export function Step({
  number,
  title,
  done,
  children,
}: {
  readonly number: number;
  readonly title: string;
  readonly done: boolean;
  readonly children: ReactNode;
}) {
  return (
    <li className={`start-step ${done ? 'start-step-done' : 'start-step-todo'}`} aria-labelledby={`step-${number}-title`}>
      <span className="start-step-mark" aria-hidden="true">{done ? '✓' : number}</span>
      <div className="start-step-body">
        <h3 id={`step-${number}-title`}>
          {title}{' '}
          <Badge tone={done ? 'success' : 'neutral'}>{done ? 'Done' : 'To do'}</Badge>
        </h3>
        {children}
      </div>
    </li>
  );
}
