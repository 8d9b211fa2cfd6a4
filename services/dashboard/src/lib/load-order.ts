// Orders a page's loads against each other. The refresh every few seconds
// and the reload after an action (Pause, Replay now, a bulk Confirm) can be
// out at once, and their answers can arrive in either order: a timed answer
// the server gave before the action must not put the old state back after
// the action's reload has shown the new one. Each load takes a number when
// it starts; its answer is applied only if no load started after it has
// already been applied. A key keeps separate things apart (one trigger's
// lookup does not make another's stale).
import { useRef } from "react";

export class LoadOrder {
  private started = 0;
  private readonly applied = new Map<string, number>();

  /** Call when a load starts; the function it returns says, once the answer is in, whether to apply it. */
  start(key = ""): () => boolean {
    const n = ++this.started;
    return () => {
      if (n < (this.applied.get(key) ?? 0)) return false;
      this.applied.set(key, n);
      return true;
    };
  }
}

/** One LoadOrder for the component's lifetime. */
export function useLoadOrder(): LoadOrder {
  const order = useRef<LoadOrder | null>(null);
  order.current ??= new LoadOrder();
  return order.current;
}
