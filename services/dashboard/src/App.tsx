// Who is signed in, and which page shows. The session cookie is HttpOnly, so
// the app learns whether it has a session by asking GET /project; any 401
// later (an expired or revoked session) brings the sign-in form back in
// place, and signing in again returns to the same page. When that first
// question gets no answer (ttr's storage down, the api unreachable), the
// session may well be alive: the app says so and asks again, rather than
// asking for a password it does not need.
import { useCallback, useEffect, useRef, useState } from "react";
import { Layout } from "./components/Layout";
import { ApiError, api, errorText, onSessionLost } from "./lib/api";
import { useLocation } from "./lib/router";
import { DeadLetters } from "./pages/DeadLetters";
import { NotFound } from "./pages/NotFound";
import { Overview } from "./pages/Overview";
import { Policies } from "./pages/Policies";
import { SignIn } from "./pages/SignIn";
import { TriggerDetail } from "./pages/TriggerDetail";
import { Triggers } from "./pages/Triggers";

export type Auth =
  | { state: "checking" }
  | { state: "unavailable"; reason: string }
  | { state: "signedOut"; reason: string | null }
  | { state: "signedIn"; projectName: string; email: string | null };

const EMAIL_KEY = "ttr.email";
/** How soon to ask again whether the session is alive, when ttr did not say (no Retry-After). */
const RECHECK_MS = 5000;

/** A path segment as written in the address; a malformed escape (`%ZZ`) is kept as it is, and is then no trigger's ID. */
function decodedSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** The path with one trailing slash dropped, so `/triggers/` is `/triggers`; "/" stays. */
function withoutTrailingSlash(path: string): string {
  return path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path;
}

function Page({ path }: { path: string }) {
  if (path === "/") return <Overview />;
  if (path === "/triggers") return <Triggers />;
  const detail = /^\/triggers\/([^/]+)$/.exec(path);
  if (detail) return <TriggerDetail key={detail[1]} id={decodedSegment(detail[1]!)} />;
  if (path === "/dead-letters") return <DeadLetters />;
  if (path === "/tag-policies") return <Policies />;
  return <NotFound />;
}

export function App() {
  const [auth, setAuth] = useState<Auth>({ state: "checking" });
  const path = withoutTrailingSlash(useLocation().path);

  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let gone = false;
    const check = () =>
      api.project().then(
        ({ project }) => setAuth({ state: "signedIn", projectName: project.name, email: sessionStorage.getItem(EMAIL_KEY) }),
        (e: unknown) => {
          if (e instanceof ApiError && e.status === 401) {
            setAuth({ state: "signedOut", reason: null });
            return;
          }
          setAuth({ state: "unavailable", reason: errorText(e) });
          // an answer that came after the page let go of this check asks no more
          if (!gone) timer = setTimeout(check, e instanceof ApiError && e.retryAfter !== null ? e.retryAfter * 1000 : RECHECK_MS);
        },
      );
    void check();
    const stopListening = onSessionLost(() =>
      setAuth((a) => (a.state === "signedIn" ? { state: "signedOut", reason: "Your session has ended. Sign in again to continue." } : a)),
    );
    return () => {
      gone = true;
      clearTimeout(timer);
      stopListening();
    };
  }, []);

  const signedIn = useCallback((email: string, projectName: string) => {
    sessionStorage.setItem(EMAIL_KEY, email);
    setAuth({ state: "signedIn", projectName, email });
  }, []);

  const signOut = useCallback(async () => {
    try {
      await api.signOut();
    } catch (e) {
      // Already signed out (401) ends up in the same place.
      if (!(e instanceof ApiError && e.status === 401)) throw e;
    }
    sessionStorage.removeItem(EMAIL_KEY);
    setAuth({ state: "signedOut", reason: "You have signed out." });
  }, []);

  // Move focus to the new page's content so keyboard and screen-reader users start there.
  const main = useRef<HTMLElement>(null);
  const first = useRef(true);
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs on navigation
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    main.current?.focus();
  }, [path]);

  if (auth.state === "checking") {
    return (
      <div className="center" aria-busy="true">
        <p className="muted">Loading…</p>
      </div>
    );
  }
  if (auth.state === "unavailable") {
    return (
      <div className="center" aria-busy="true">
        <p role="alert">{auth.reason}</p>
        <p className="muted">Trying again in a few seconds…</p>
      </div>
    );
  }
  if (auth.state === "signedOut") return <SignIn reason={auth.reason} onSignedIn={signedIn} />;
  return (
    <Layout path={path} projectName={auth.projectName} email={auth.email} onSignOut={signOut} mainRef={main}>
      <Page path={path} />
    </Layout>
  );
}
