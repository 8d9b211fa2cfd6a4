// Small pieces shared by the pages.
import type { ReactNode } from "react";
import { inZone, statusLabel, utc } from "../lib/format";

export function StatusBadge({ kind, status }: { kind: "job" | "generator"; status: string }) {
  return <span className={`badge status-${status}`}>{statusLabel(kind, status)}</span>;
}

/** A compact time with both renderings available: local on screen, UTC on hover and to assistive tech. */
export function Time({ iso, children }: { iso: string | null; children?: ReactNode }) {
  if (iso === null) return <span className="muted">—</span>;
  return (
    <time dateTime={iso} title={`${utc(iso)} · ${inZone(iso)}`}>
      {children ?? inZone(iso)}
    </time>
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
