// A store that is down makes its client fail again and again (every
// reconnect, every retry). Operators need the change, not the repetition:
// one line when it goes down, one when it is back.
import type { Logger } from "./logger.js";

export class OutageLog {
  private down = false;

  constructor(
    private readonly log: Logger,
    private readonly store: string,
    private readonly meta: Record<string, unknown> = {},
  ) {}

  /** A failure: logged if the store was working until now. */
  failed(err: unknown): void {
    if (this.down) return;
    this.down = true;
    this.log.warn(`${this.store} unavailable`, { ...this.meta, error: err instanceof Error ? err.message : String(err) });
  }

  /** It answers again: logged if it was down. */
  recovered(): void {
    if (!this.down) return;
    this.down = false;
    this.log.info(`${this.store} available again`, this.meta);
  }
}
