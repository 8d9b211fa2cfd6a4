// Small pieces shared by the pages.
import type { ReactNode } from "react";
import { inZone, short, statusLabel, utc } from "../lib/format";

export function StatusBadge({ kind, status }: { kind: "job" | "generator"; status: string }) {
  return <span className={`badge status-${status}`}>{statusLabel(kind, status)}</span>;
}

/**
 * A time in the viewer's zone and in UTC, as docs/dashboard.md promises:
 * side by side in running text, one under the other in tables and detail
 * lists (styles.css). `compact` is for crowded tables: the date is left
 * out when it is today. With children (such as "5 minutes ago") only they
 * are shown, and both times are in the hover title and to assistive tech.
 */
export function Time({ iso, compact = false, children }: { iso: string | null; compact?: boolean; children?: ReactNode }) {
  if (iso === null) return <span className="muted">—</span>;
  const title = `${utc(iso)} · ${inZone(iso)}`;
  if (children !== undefined) {
    return (
      <time dateTime={iso} title={title}>
        {children}
      </time>
    );
  }
  return (
    <time dateTime={iso} title={title} className="both">
      <span className="time-local">{compact ? short(iso) : inZone(iso)}</span>
      <span className="time-sep"> · </span>
      <span className="time-utc muted">{compact ? short(iso, "UTC") : inZone(iso, "UTC")}</span>
    </time>
  );
}

/**
 * An error with a Dismiss button: what an action the person took got back,
 * which stays until they dismiss it or act again (refreshes do not clear it).
 */
export function ActionError({ error, onDismiss }: { error: string | null; onDismiss: () => void }) {
  if (error === null) return null;
  return (
    <div className="note error dismissable" role="alert" data-testid="action-error">
      <p className="note-text">{error}</p>
      <button type="button" className="button small" onClick={onDismiss}>
        Dismiss
      </button>
    </div>
  );
}

export function ErrorNote({ error }: { error: string | null }) {
  if (error === null) return null;
  return (
    <p className="note error" role="alert">
      {error}
    </p>
  );
}

export function Notice({ text }: { text: string | null }) {
  return (
    <p className="note ok" role="status" hidden={text === null}>
      {text}
    </p>
  );
}

export function Tags({ tags }: { tags: string[] }) {
  if (tags.length === 0) return <span className="muted">—</span>;
  return (
    <ul className="tags" aria-label="Tags">
      {tags.map((t) => (
        <li key={t} className="tag">
          {t}
        </li>
      ))}
    </ul>
  );
}

/** Headers as a two-column list; names and values are text, never markup. */
export function HeaderList({ headers, empty = "No headers" }: { headers: Record<string, string> | null; empty?: string }) {
  const entries = headers === null ? [] : Object.entries(headers);
  if (entries.length === 0) return <p className="muted">{empty}</p>;
  return (
    <dl className="headers">
      {entries.map(([name, value]) => (
        <div key={name} className="header-row">
          <dt>{name}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

/** A stored body as preformatted text. */
export function Body({ text, empty = "No body" }: { text: string | null; empty?: string }) {
  if (text === null) return <p className="muted">{empty}</p>;
  if (text === "") return <p className="muted">Empty body</p>;
  return (
    <pre className="body">
      {text}
    </pre>
  );
}
