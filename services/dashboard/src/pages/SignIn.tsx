// Sign in with email and password (POST /auth/login). The API answers 401
// "Invalid credentials" for a wrong email or password alike, and 429 when
// too many attempts were made; both are shown as the API words them.
import { type FormEvent, useEffect, useId, useRef, useState } from "react";
import { ApiError, api, errorText } from "../lib/api";

interface Props {
  reason: string | null;
  onSignedIn: (email: string, projectName: string) => void;
}

function waitText(seconds: number | null): string {
  if (seconds === null) return "";
  const minutes = Math.ceil(seconds / 60);
  return seconds < 90 ? ` (about ${seconds} s)` : ` (about ${minutes} minutes)`;
}

export function SignIn({ reason, onSignedIn }: Props) {
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const errorId = useId();
  const emailRef = useRef<HTMLInputElement>(null);

  useEffect(() => {
    document.title = "Sign in · ttr";
    emailRef.current?.focus();
  }, []);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (email.trim() === "" || password === "") {
      setError("Enter your email and password.");
      return;
    }
    setBusy(true);
    setError(null);
    try {
      const res = await api.signIn(email.trim(), password);
      onSignedIn(res.user.email, res.project.name);
    } catch (err) {
      if (err instanceof ApiError && err.status === 429) setError(`${err.message}${waitText(err.retryAfter)}.`);
      else if (err instanceof ApiError && err.status === 400) setError("Enter your email and password.");
      else setError(errorText(err));
      setPassword("");
    } finally {
      setBusy(false);
    }
  };

  return (
    <main className="signin" id="main">
      <form className="card signin-card" onSubmit={submit} noValidate aria-describedby={error ? errorId : undefined}>
        <p className="brand big" aria-hidden="true">
          ttr
        </p>
        <h1>Sign in to the dashboard</h1>
        {reason && !error && (
          <p className="note info" role="status">
            {reason}
          </p>
        )}
        {error && (
          <p className="note error" role="alert" id={errorId}>
            {error}
          </p>
        )}
        <div className="field">
          <label htmlFor="signin-email">Email</label>
          <input
            ref={emailRef}
            id="signin-email"
            type="email"
            autoComplete="username"
            required
            value={email}
            onChange={(e) => setEmail(e.target.value)}
            aria-invalid={error !== null}
          />
        </div>
        <div className="field">
          <label htmlFor="signin-password">Password</label>
          <input
            id="signin-password"
            type="password"
            autoComplete="current-password"
            required
            value={password}
            onChange={(e) => setPassword(e.target.value)}
            aria-invalid={error !== null}
          />
        </div>
        <button type="submit" className="button primary wide" disabled={busy}>
          {busy ? "Signing in…" : "Sign in"}
        </button>
      </form>
    </main>
  );
}
