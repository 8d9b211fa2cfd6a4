// The frame around every signed-in page: skip link, navigation, sign out.
import { type ReactNode, type Ref, useEffect, useState } from "react";
import { errorText } from "../lib/api";
import { Link } from "../lib/router";

const NAV = [
  { to: "/", label: "Overview", match: (p: string) => p === "/" },
  { to: "/triggers", label: "Triggers", match: (p: string) => p.startsWith("/triggers") },
  { to: "/dead-letters", label: "Dead letters", match: (p: string) => p === "/dead-letters" },
  { to: "/tag-policies", label: "Tag policies", match: (p: string) => p === "/tag-policies" },
];

interface Props {
  path: string;
  projectName: string;
  email: string | null;
  onSignOut: () => Promise<void>;
  mainRef: Ref<HTMLElement>;
  children: ReactNode;
}

export function Layout({ path, projectName, email, onSignOut, mainRef, children }: Props) {
  const [error, setError] = useState<string | null>(null);
  const signOut = () => {
    setError(null);
    return onSignOut().catch((e: unknown) => setError(`Sign out failed: ${errorText(e)}`));
  };
  // A failed sign-out is about that moment only: going to another page clears its message, and so does Dismiss.
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs on navigation
  useEffect(() => setError(null), [path]);
  return (
    <>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <div className="topbar-inner">
          <Link to="/" className="brand" aria-label="ttr dashboard home">
            ttr
          </Link>
          <nav aria-label="Main">
            <ul className="nav">
              {NAV.map((n) => (
                <li key={n.to}>
                  <Link to={n.to} aria-current={n.match(path) ? "page" : undefined}>
                    {n.label}
                  </Link>
                </li>
              ))}
            </ul>
          </nav>
          <div className="account">
            <span className="account-name">
              <span className="project">{projectName}</span>
              {email && <span className="email">{email}</span>}
            </span>
            <button type="button" className="button small" onClick={signOut}>
              Sign out
            </button>
          </div>
        </div>
        {error && (
          <div className="note error dismissable topbar-error" role="alert">
            <p className="note-text">{error}</p>
            <button type="button" className="button small" onClick={() => setError(null)}>
              Dismiss
            </button>
          </div>
        )}
      </header>
      <main id="main" ref={mainRef} tabIndex={-1}>
        {children}
      </main>
    </>
  );
}
