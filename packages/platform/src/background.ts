// Work a caller starts and does not wait for (recording an attempt's
// outcome, sending a dead-letter notification), kept track of so that a
// shutdown can wait for what is still under way.

export class BackgroundWork {
  private readonly running = new Set<Promise<void>>();

  /** Lets `work` run on; a failure goes to `onError`, never to the caller. */
  add(work: Promise<unknown>, onError: (err: unknown) => void): void {
    const tracked = work.then(
      () => {},
      (err: unknown) => onError(err),
    );
    this.running.add(tracked);
    void tracked.finally(() => this.running.delete(tracked));
  }

  /** How much is under way. */
  get size(): number {
    return this.running.size;
  }

  /** Resolves once nothing is under way, including work added meanwhile. */
  async drain(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }
}
