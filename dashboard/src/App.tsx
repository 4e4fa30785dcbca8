import { useQuery } from '@tanstack/react-query';
import { type ReactNode, Suspense, use, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { Api, errorMessage } from './api';
import { SignIn } from './auth/SignIn';
import { clearSession, completeCognitoSignIn, loadSession, type Session, signOut } from './auth/session';
import type { SignInNotice } from './auth/SignIn';
import { Loading, Notice } from './components/parts';
import { loadConfig, type RuntimeConfig } from './config';
import { AppContext, type AppContextValue, planName, useApp } from './context';
import { KeysPage } from './pages/KeysPage';
import { NotFoundPage } from './pages/NotFoundPage';
import { OverviewPage } from './pages/OverviewPage';
import { PlansPage } from './pages/PlansPage';
import { ProjectPage } from './pages/ProjectPage';
import { ProjectsPage } from './pages/ProjectsPage';
import { DomainsPage } from './pages/DomainsPage';
import { UsagePage } from './pages/UsagePage';
import { MessagePage } from './pages/messages/MessagePage';
import { MessagesPage } from './pages/messages/MessagesPage';
import { WebhooksPage } from './pages/webhooks/WebhooksPage';
import { queryClient } from './query-client';
import { useAccount } from './queries';
import { href, type Route, useRoute } from './router';

type Ready = { readonly config: RuntimeConfig; readonly session: Session | undefined; readonly notice?: SignInNotice };

let starting: Promise<Ready | { readonly error: string }> | undefined;

/** Loads config.json and completes a Cognito redirect, once per page load (the code is single-use). */
function start() {
  starting ??= loadConfig().then(async (config) => {
    const session = loadSession();
    try {
      return { config, session: (await completeCognitoSignIn(config)) ?? session };
    } catch (e) {
      return { config, session, notice: { tone: 'warning', text: errorMessage(e) } as const };
    }
  }, (e: unknown) => ({ error: errorMessage(e) }));
  return starting;
}

export function App() {
  return (
    <Suspense fallback={<main id="main" className="boot"><Loading label="Loading the dashboard…" /></main>}>
      <Started />
    </Suspense>
  );
}

function Started() {
  const [boot, setBoot] = useState(use(start()));
  if ('error' in boot) {
    return (
      <main id="main" className="boot">
        <Notice tone="error" title="The dashboard could not start">{boot.error}</Notice>
      </main>
    );
  }
  const { config, session, notice } = boot;
  const onSignedOut: SignedOut = (message) => {
    clearSession();
    queryClient.clear();
    setBoot({ config, session: undefined, notice: message });
  };
  if (!session) return <SignIn config={config} notice={notice} onSignedIn={(s) => setBoot({ config, session: s })} />;
  return <SignedIn key={session.token} config={config} session={session} onSignedOut={onSignedOut} />;
}

type SignedOut = (message?: SignInNotice) => void;

function SignedIn({ config, session, onSignedOut }: Readonly<Ready & { session: Session; onSignedOut: SignedOut }>) {
  const expired = useRef(false);
  const onUnauthorized = useCallback(() => {
    if (expired.current) return;
    expired.current = true;
    // The deep link stays: the same owner signing in again goes back where they were.
    onSignedOut({ tone: 'warning', text: 'Your session has expired. Sign in again.' });
  }, [onSignedOut]);
  const api = useMemo(
    () => new Api({ baseUrl: config.apiBaseUrl, token: () => session.token, onUnauthorized }),
    [config.apiBaseUrl, session.token, onUnauthorized],
  );
  // Read once per session: the account then refreshes through useAccount(), the plans never change.
  const boot = useQuery({
    queryKey: ['me'],
    queryFn: () => Promise.all([api.me(), api.plans()]),
    retry: false,
    staleTime: Infinity,
    refetchInterval: false,
    refetchOnWindowFocus: false,
  });

  // Sessions end on their own: go back to sign-in when the token expires.
  useEffect(() => {
    const ms = Date.parse(session.expiresAt) - Date.now();
    const timer = window.setTimeout(onUnauthorized, Math.max(0, Math.min(ms, 2 ** 31 - 1)));
    return () => window.clearTimeout(timer);
  }, [session.expiresAt, onUnauthorized]);

  if (boot.error) {
    return (
      <main id="main" className="boot">
        <Notice tone="error" title="Your account could not be loaded">{errorMessage(boot.error)}</Notice>
        <div className="row">
          <button type="button" className="button primary" onClick={() => void boot.refetch()}>Try again</button>
          <button type="button" className="button secondary" onClick={() => signOutNow(config, onSignedOut)}>Sign out</button>
        </div>
      </main>
    );
  }
  if (!boot.data) return <main id="main" className="boot"><Loading label="Loading your account…" /></main>;
  const [me, plans] = boot.data;
  const bootAccount = { account: me.account, readAt: boot.dataUpdatedAt };
  const value: AppContextValue = { config, api, email: me.email, accountId: me.account.accountId, bootAccount, plans };
  return (
    <AppContext.Provider value={value}>
      <Shell onSignOut={() => signOutNow(config, onSignedOut)} />
    </AppContext.Provider>
  );
}

/** Signing out forgets where the owner was: the next owner to sign in on this tab lands on the overview. */
function signOutNow(config: RuntimeConfig, onSignedOut: SignedOut) {
  history.replaceState(null, '', `${location.pathname}${location.search}`);
  // Nothing of this owner's account stays in the cache for the next one.
  queryClient.clear();
  signOut(config);
  if (config.auth.kind === 'dev') onSignedOut({ tone: 'info', text: 'You are signed out.' });
}

function Shell({ onSignOut }: { readonly onSignOut: () => void }) {
  const route = useRoute();
  const { config, email, plans } = useApp();
  const account = useAccount();
  return (
    <>
      <a
        className="skip-link"
        href="#main"
        onClick={(e) => {
          e.preventDefault();
          document.getElementById('main')?.focus();
        }}
      >
        Skip to content
      </a>
      <header className="topbar">
        <div className="topbar-inner">
          <a className="brand" href={href.overview}><span aria-hidden="true" className="brand-mark">◆</span> Platform</a>
          {config.auth.kind === 'dev' && (
            <span className="dev-badge" title="Local platform only, no password">Development sign-in</span>
          )}
          <div className="account">
            <span className="account-email">{email}</span>
            <span className="badge badge-neutral">{planName(plans, account.plan)} plan</span>
            <button type="button" className="button small secondary" onClick={onSignOut}>Sign out</button>
          </div>
        </div>
        <nav aria-label="Main" className="mainnav">
          <NavLink to={href.overview} current={route.name === 'overview'}>Overview</NavLink>
          <NavLink to={href.keys} current={route.name === 'keys'}>API keys</NavLink>
          <NavLink to={href.usage} current={route.name === 'usage' || route.name === 'plans'}>Plan &amp; usage</NavLink>
          <NavLink to={href.projects} current={route.name === 'projects' || route.name === 'project' || route.name === 'domains'}>
            Projects
          </NavLink>
          <NavLink to={href.messages} current={route.name === 'messages' || route.name === 'message'}>Messages</NavLink>
          <NavLink to={href.webhooks} current={route.name === 'webhooks'}>Webhooks</NavLink>
        </nav>
      </header>
      <main id="main" tabIndex={-1} className="content">
        <Page route={route} />
      </main>
    </>
  );
}

function NavLink({ to, current, children }: Readonly<{ to: string; current: boolean; children: ReactNode }>) {
  return <a href={to} aria-current={current ? 'page' : undefined} className="navlink">{children}</a>;
}

const PAGES = {
  overview: OverviewPage, keys: KeysPage, usage: UsagePage, plans: PlansPage,
  projects: ProjectsPage, messages: MessagesPage, webhooks: WebhooksPage,
};

function Page({ route }: { readonly route: Route }) {
  if (route.name === 'project') return <ProjectPage key={route.projectId} projectId={route.projectId} />;
  if (route.name === 'domains') return <DomainsPage key={route.projectId} projectId={route.projectId} />;
  if (route.name === 'message') return <MessagePage key={route.messageId} messageId={route.messageId} />;
  if (route.name === 'not-found') return <NotFoundPage path={route.path} />;
  const Component = PAGES[route.name];
  return <Component />;
}
