import { useMutation } from '@tanstack/react-query';
import { useEffect, useId, useRef, useState } from 'react';
import type { RuntimeConfig } from '../config';
import { ActionError, Form, Notice } from '../components/parts';
import { beginCognitoSignIn, devSignIn, type Session } from './session';

/** Why the owner is on the sign-in page again: signed out (info), or a session that ended (warning). */
export interface SignInNotice {
  readonly tone: 'info' | 'warning';
  readonly text: string;
}

const PLAN_NAMES: Record<string, string> = { free: 'Free', pro: 'Pro', business: 'Business', enterprise: 'Enterprise' };

export function SignIn({ config, notice, onSignedIn }: {
  readonly config: RuntimeConfig;
  /** Why the owner is here again (e.g. the session expired). */
  readonly notice?: SignInNotice;
  readonly onSignedIn: (session: Session) => void;
}) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = 'Sign in · Dashboard';
    heading.current?.focus();
  }, []);
  const { auth } = config;

  return (
    <main id="main" className="sign-in">
      <div className="sign-in-card">
        <p className="brand brand-large"><span aria-hidden="true" className="brand-mark">◆</span> Platform</p>
        {auth.kind === 'dev' && (
          <p className="dev-banner" role="note">
            <span aria-hidden="true">⚠</span> Development sign-in (local platform only, no password)
          </p>
        )}
        <h1 ref={heading} tabIndex={-1}>{auth.kind === 'dev' ? 'Development sign-in' : 'Sign in'}</h1>
        {notice && <Notice tone={notice.tone} live>{notice.text}</Notice>}
        {auth.kind === 'dev'
          ? <DevSignIn config={config} owners={auth.demoOwners} onSignedIn={onSignedIn} />
          : <CognitoSignIn config={config} />}
      </div>
    </main>
  );
}

function CognitoSignIn({ config }: { readonly config: RuntimeConfig }) {
  // On success the page is leaving for the managed login: the button stays busy.
  const begin = useMutation({ mutationFn: () => beginCognitoSignIn(config) });
  const busy = begin.isPending || begin.isSuccess;
  return (
    <>
      <p>Sign in to manage your API keys, usage, projects and domains.</p>
      <button type="button" className="button primary wide" disabled={busy} onClick={() => begin.mutate()}>
        {busy ? 'Redirecting…' : 'Sign in or create an account'}
      </button>
      <ActionError error={begin.error} />
    </>
  );
}

function DevSignIn({ config, owners, onSignedIn }: {
  readonly config: RuntimeConfig;
  readonly owners: Extract<RuntimeConfig['auth'], { kind: 'dev' }>['demoOwners'];
  readonly onSignedIn: (session: Session) => void;
}) {
  const [email, setEmail] = useState('');
  const [empty, setEmpty] = useState(false);
  const errorId = useId();
  const mutation = useMutation({ mutationFn: (address: string) => devSignIn(config, address), onSuccess: onSignedIn });
  const busy = mutation.isPending ? mutation.variables : undefined;
  const error = empty ? 'Enter an email address.' : mutation.error;
  const signIn = (address: string) => {
    setEmpty(!address);
    if (address) mutation.mutate(address);
  };

  return (
    <>
      <p>
        This local platform has no real accounts. Pick a demo owner, or type any email: a new owner gets a Free
        account.
      </p>
      {owners.length > 0 && (
        <section aria-labelledby="demo-owners">
          <h2 id="demo-owners">Demo owners</h2>
          <ul className="owner-list">
            {owners.map((owner) => (
              <li key={owner.email}>
                <button
                  type="button"
                  className="button secondary wide owner"
                  disabled={busy !== undefined}
                  onClick={() => signIn(owner.email)}
                >
                  <span>Sign in as {owner.email}</span>
                  <span className="badge badge-neutral">{PLAN_NAMES[owner.plan] ?? owner.plan}</span>
                </button>
              </li>
            ))}
          </ul>
        </section>
      )}
      <Form onSubmit={() => signIn(email.trim())} className="stack">
        <h2>Any email</h2>
        <div className="field">
          <label htmlFor="dev-email">Email</label>
          <input
            id="dev-email"
            type="email"
            autoComplete="email"
            value={email}
            onChange={(e) => setEmail(e.target.value)}
            aria-describedby={error ? errorId : undefined}
            aria-invalid={error ? true : undefined}
          />
        </div>
        <button type="submit" className="button primary" disabled={busy !== undefined}>
          {busy && busy === email.trim() ? 'Signing in…' : 'Sign in'}
        </button>
        <ActionError error={error} id={errorId} />
      </Form>
    </>
  );
}
