// Refreshing while a page is open: run at once, then every `intervalMs`
// while the tab is visible; a hidden tab pauses, and showing it again
// refreshes at once. Runs never overlap. `run` is told whether it is a
// timed run, to pass on to its API calls as `{ background }` (lib/api.ts).
import { useEffect, useRef } from "react";

export const REFRESH_MS = 5000;

export function usePolling(run: (background: boolean) => Promise<void>, deps: readonly unknown[], intervalMs = REFRESH_MS): void {
  const latest = useRef(run);
  latest.current = run;

  useEffect(() => {
    let stopped = false;
    let busy = false;
    let timer: ReturnType<typeof setTimeout> | undefined;

    // Only the first run is the person's doing (opening the page, showing
    // the tab); the timed ones are marked as background requests.
    const tick = async (background: boolean) => {
      clearTimeout(timer);
      // A run in flight schedules the next one when it ends.
      if (stopped || busy) return;
      if (document.visibilityState === "visible") {
        busy = true;
        try {
          await latest.current(background);
        } finally {
          busy = false;
        }
      }
      if (!stopped && document.visibilityState === "visible") timer = setTimeout(() => void tick(true), intervalMs);
    };
    const onVisibility = () => {
      if (document.visibilityState === "visible") void tick(false);
      else clearTimeout(timer);
    };
    document.addEventListener("visibilitychange", onVisibility);
    void tick(false);
    return () => {
      stopped = true;
      clearTimeout(timer);
      document.removeEventListener("visibilitychange", onVisibility);
    };
  }, [intervalMs, ...deps]);
}
