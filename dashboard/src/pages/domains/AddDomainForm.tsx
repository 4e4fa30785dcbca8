import { useId, useState } from 'react';
import { ActionError, Card, Form } from '../../components/parts';
import { useAction, useNotice } from '../../flash';
import { useApp } from '../../context';
import type { Domain, Project } from '../../types';

export function AddDomainForm({ project, addedPending, onAdded }: {
  readonly project: Project;
  /** Whether the domain added last still waits for its DNS record (its hint stays until then). */
  readonly addedPending: boolean;
  readonly onAdded: (domain: Domain) => void;
}) {
  const { api, accountId } = useApp();
  const [input, setInput] = useState('');
  const { busy, error, refuse, run } = useAction();
  const [added, setAdded] = useNotice<{ typed: string; domain: Domain }>();
  const errorId = useId();
  const hintId = useId();

  const onSubmit = async () => {
    if (!input.trim()) return refuse('Enter a domain, e.g. www.example.com.');
    await run(async () => {
      const result = await api.addDomain(accountId, project.projectId, input);
      setAdded({ typed: input.trim(), domain: result.domain });
      setInput('');
      onAdded(result.domain);
    });
  };

  return (
    <Card title="Add domain">
      <Form className="inline-form" onSubmit={onSubmit}>
        <div className="field grow">
          <label htmlFor="add-domain-input">Domain</label>
          <input
            id="add-domain-input"
            value={input}
            inputMode="url"
            autoComplete="off"
            autoCapitalize="none"
            spellCheck={false}
            placeholder="www.example.com"
            onChange={(e) => setInput(e.target.value)}
            aria-describedby={`${hintId}${error ? ` ${errorId}` : ''}`}
            aria-invalid={error ? true : undefined}
          />
          <p className="hint" id={hintId}>
            A subdomain such as www.example.com (CNAME record) or an apex domain such as example.com (ALIAS/ANAME
            record).
          </p>
        </div>
        <button type="submit" className="button primary" disabled={busy}>{busy ? 'Adding…' : 'Add domain'}</button>
      </Form>
      <ActionError error={error} id={errorId} />
      <p role="status" className="status-line">
        {added && addedPending && (
          <>
            <span aria-hidden="true">✓ </span>Added <strong>{added.domain.domain}</strong>
            {added.typed !== added.domain.domain && <> (you entered “{added.typed}”; this is its normalised name)</>}.
            {' '}Set the DNS {added.domain.records.length === 1 ? 'record' : 'records'} shown below, then press Verify.
          </>
        )}
      </p>
    </Card>
  );
}
