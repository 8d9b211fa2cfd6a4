// Groups calls that arrive while earlier ones are still running into one
// call of a batch function: with nothing in flight a call runs at once
// (no added latency when idle); under load, calls queue behind the running
// batches and go out together. The executor uses it to start and finish
// many attempts with one SQL statement each.

export interface BatcherOptions {
  /** the most inputs in one batch */
  maxBatch: number;
  /** batches running at once */
  parallel: number;
  /** told the size of each batch as it starts */
  onBatch?: (size: number) => void;
  /**
   * How long a call may wait for others to join its batch when a batch
   * could start (0: start at once). Larger batches cost the database less
   * per input; each call waits at most this long more.
   */
  lingerMs?: number;
  /**
   * Whether the inputs of a batch that failed with `err` are run again one
   * at a time (the default: always). Callers whose batch may have taken
   * effect despite the error say no for such errors, and settle each call
   * themselves.
   */
  retryAlone?: (err: unknown) => boolean;
  /**
   * Whether a batch that failed with `err` fails its calls and those waiting
   * behind it at once, running none of them again (default: never). For a
   * store that did not answer in time: each retry or waiting batch would
   * wait as long again before it too failed, and its callers' answers would
   * come late.
   */
  failWaiting?: (err: unknown) => boolean;
}

interface Pending<I, O> {
  input: I;
  at: number;
  resolve: (out: O) => void;
  reject: (err: unknown) => void;
}

export class Batcher<I, O> {
  private queue: Array<Pending<I, O>> = [];
  private running = 0;

  /** `run` answers one output per input, in input order. */
  constructor(
    private readonly run: (inputs: I[]) => Promise<O[]>,
    private readonly opts: BatcherOptions,
  ) {}

  call(input: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.queue.push({ input, at: Date.now(), resolve, reject });
      this.pump();
    });
  }

  private timer: NodeJS.Timeout | null = null;

  private pump(): void {
    while (this.running < this.opts.parallel && this.queue.length > 0) {
      const linger = this.opts.lingerMs ?? 0;
      const waited = Date.now() - (this.queue[0]?.at ?? 0);
      if (this.queue.length < this.opts.maxBatch && waited < linger) {
        this.timer ??= setTimeout(() => {
          this.timer = null;
          this.pump();
        }, linger - waited);
        return;
      }
      const batch = this.queue.splice(0, this.opts.maxBatch);
      this.running++;
      this.opts.onBatch?.(batch.length);
      void this.settle(batch).finally(() => {
        this.running--;
        this.pump();
      });
    }
  }

  /**
   * A failed batch of several is run again one input at a time, so an input
   * that cannot be processed (or a transient failure such as a deadlock)
   * fails only its own call.
   */
  private async settle(batch: Array<Pending<I, O>>): Promise<void> {
    try {
      const outs = await this.run(batch.map((p) => p.input));
      for (const [i, p] of batch.entries()) p.resolve(outs[i] as O);
    } catch (err) {
      const failAll = this.opts.failWaiting?.(err) === true;
      if (failAll) for (const p of this.queue.splice(0)) p.reject(err);
      if (batch.length === 1 || failAll || this.opts.retryAlone?.(err) === false) {
        for (const p of batch) p.reject(err);
        return;
      }
      await Promise.all(
        batch.map(async (p) => {
          try {
            const [out] = await this.run([p.input]);
            p.resolve(out as O);
          } catch (one) {
            p.reject(one);
          }
        }),
      );
    }
  }
}

/**
 * A Batcher per key (a project, an API key), made on first use and dropped
 * once its key has no call pending, so idle keys hold no memory.
 */
export class KeyedBatchers<I, O> {
  private readonly batchers = new Map<string, { batcher: Batcher<I, O>; pending: number }>();

  constructor(private readonly make: (key: string) => Batcher<I, O>) {}

  async call(key: string, input: I): Promise<O> {
    let entry = this.batchers.get(key);
    if (entry === undefined) {
      entry = { batcher: this.make(key), pending: 0 };
      this.batchers.set(key, entry);
    }
    entry.pending++;
    try {
      return await entry.batcher.call(input);
    } finally {
      if (--entry.pending === 0) this.batchers.delete(key);
    }
  }

  /** keys with calls pending */
  get size(): number {
    return this.batchers.size;
  }
}
