// One trigger list (GET /triggers) as React state: the first page, "Load
// more" following the cursor, and a refresh every few seconds while the tab
// is visible. A refresh reloads the rows already shown (up to the API's 500
// per page) so statuses move in place without losing the loaded pages. A new
// filter starts over; answers for an old filter are dropped. A refresh that
// was out while Load more added a page keeps the added rows (those after its
// last row, lib/refreshed-rows.ts) but not its cursor, which points into the
// rows already loaded.
import { useCallback, useEffect, useRef, useState } from "react";
import { type TriggerFilter, api, errorText } from "./api";
import { usePolling } from "./polling";
import { refreshedRows } from "./refreshed-rows";
import type { Trigger } from "./types";

export const PAGE = 50;
const MAX_LIMIT = 500;

export interface TriggerList {
  rows: Trigger[] | null;
  cursor: string | null;
  error: string | null;
  updated: Date | null;
  loadingMore: boolean;
  loadMore: () => Promise<void>;
}

export function useTriggerList(filter: TriggerFilter): TriggerList {
  const key = JSON.stringify(filter);
  const [rows, setRows] = useState<Trigger[] | null>(null);
  const [cursor, setCursor] = useState<string | null>(null);
  const [loadingMore, setLoadingMore] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [updated, setUpdated] = useState<Date | null>(null);
  const current = useRef(key);
  const shown = useRef(0);
  /** bumped by each page Load more adds */
  const more = useRef(0);
  current.current = key;
  shown.current = rows?.length ?? 0;

  // biome-ignore lint/correctness/useExhaustiveDependencies: `key` stands for the filter
  useEffect(() => {
    setRows(null);
    setCursor(null);
    setUpdated(null);
    shown.current = 0;
  }, [key]);

  const refresh = useCallback(async (background = false) => {
    const loaded = shown.current;
    const limit = Math.min(Math.max(loaded, PAGE), MAX_LIMIT);
    const pages = more.current;
    try {
      const page = await api.triggers(JSON.parse(key) as TriggerFilter, limit, null, { background });
      if (current.current !== key) return;
      setRows((old) => refreshedRows(old, page.triggers, limit, page.nextCursor === null));
      if (loaded <= MAX_LIMIT && more.current === pages) setCursor(page.nextCursor);
      setError(null);
      setUpdated(new Date());
    } catch (e) {
      if (current.current === key) setError(errorText(e));
    }
  }, [key]);

  usePolling(refresh, [refresh]);

  const loadMore = useCallback(async () => {
    if (cursor === null) return;
    setLoadingMore(true);
    try {
      const page = await api.triggers(JSON.parse(key) as TriggerFilter, PAGE, cursor);
      if (current.current !== key) return;
      more.current++;
      setRows((old) => {
        const have = new Set((old ?? []).map((t) => t.id));
        return [...(old ?? []), ...page.triggers.filter((t) => !have.has(t.id))];
      });
      setCursor(page.nextCursor);
      setError(null);
    } catch (e) {
      setError(errorText(e));
    } finally {
      setLoadingMore(false);
    }
  }, [key, cursor]);

  return { rows, cursor, error, updated, loadingMore, loadMore };
}
