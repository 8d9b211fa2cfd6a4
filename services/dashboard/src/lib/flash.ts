// A message for the next page to show, once: "Trigger created" after the
// form on the Triggers page takes the person to the new trigger's page.
let pending: string | null = null;

export function flash(text: string): void {
  pending = text;
}

/** The pending message, cleared as it is taken. */
export function takeFlash(): string | null {
  const text = pending;
  pending = null;
  return text;
}
