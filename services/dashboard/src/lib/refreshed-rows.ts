// A list's refresh reloads its first rows (up to the API's 500 per page);
// the rows below them, loaded by Load more, stay as they were. The rows kept
// are those after the refreshed page's last row, found by id, not those
// after a count of rows: when new rows were created at the top meanwhile,
// the refreshed page ends earlier in the list, and cutting by count would
// drop the rows between its end and the old count's. Both lists it serves
// (triggers, dead letters) keep their order, newest first by created_at and
// id, which never change: a row only joins or leaves.

/** `old` is on screen, `page` the refresh's answer, `complete` when it reached the end of the list. */
export function refreshedRows<T extends { id: string }>(old: T[] | null, page: T[], limit: number, complete: boolean): T[] {
  if (old === null || old.length <= limit || complete) return page;
  const fresh = new Set(page.map((r) => r.id));
  // The last old row the page holds again; none when the page holds only rows newer than all of them.
  let at = old.length - 1;
  while (at >= 0 && !fresh.has(old[at]!.id)) at--;
  return [...page, ...old.slice(at + 1)];
}
