// A modal confirmation on the native <dialog>: focus moves into it (to
// the dismiss button, its first) and is kept there, Escape cancels, and focus
// returns to the opener when it closes. Parents mostly unmount the dialog
// rather than set `open` to false, and the browser only restores focus on
// close(), so the element focused when it opened is focused again by hand,
// on close and on unmount alike. When the action removed or disabled it
// (Delete policy, Replay now), focus goes to the page's main region instead.
import { type ReactNode, useEffect, useId, useRef, useState } from "react";
import { focusOrMain } from "../lib/focus";

function refocus(opener: Element | null): void {
  if (opener !== null) focusOrMain(opener);
}

interface Props {
  open: boolean;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  /** the button that closes the dialog without acting; "Cancel" unless the action is itself a cancel */
  dismissLabel?: string;
  danger?: boolean;
  onConfirm: () => Promise<void> | void;
  onClose: () => void;
}

export function ConfirmDialog({ open, title, children, confirmLabel, dismissLabel = "Cancel", danger, onConfirm, onClose }: Props) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const [busy, setBusy] = useState(false);

  const opener = useRef<Element | null>(null);

  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (open && !d.open) {
      opener.current = document.activeElement;
      d.showModal();
    }
    if (!open && d.open) {
      d.close();
      refocus(opener.current);
      opener.current = null;
    }
  }, [open]);

  useEffect(() => () => refocus(opener.current), []);

  const confirm = async () => {
    setBusy(true);
    try {
      await onConfirm();
    } finally {
      setBusy(false);
      onClose();
    }
  };

  return (
    <dialog
      ref={ref}
      className="dialog"
      aria-labelledby={titleId}
      onCancel={(e) => {
        e.preventDefault();
        if (!busy) onClose();
      }}
    >
      <h2 id={titleId}>{title}</h2>
      <div className="dialog-body">{children}</div>
      <div className="dialog-actions">
        <button type="button" className="button" onClick={onClose} disabled={busy}>
          {dismissLabel}
        </button>
        <button type="button" className={danger ? "button danger" : "button primary"} onClick={confirm} disabled={busy}>
          {busy ? "Working…" : confirmLabel}
        </button>
      </div>
    </dialog>
  );
}
