// Dead-letter notifications (docs/delivery-extras.md): when an attempt ends
// as a dead letter and a policy of its tags has a notifyUrl, one POST of
// `{event: "dead_letter", execution, trigger}` goes there (to each distinct
// URL), signed when a policy of its tags signs. A failed notification is
// tried again three times. It runs beside the attempts, never in their way:
// the attempt's queue job is finished before the notification is sent, and
// its outcome is written onto the execution for the dashboard.
import { type AttemptPolicy, executionDay, executionJson, loadTriggers, type PgRunner, type StartedAttempt, triggerExecutions, triggerJson } from "@ttr/db";
import { BackgroundWork, type Logger } from "@ttr/platform";
import type { Subnet } from "./net-guard.js";
import { withoutCredentials } from "./outcome.js";
import { type AttemptResult, sendAttempt } from "./send.js";
import type { Signer } from "./signing.js";

export interface NotifierDeps {
  db: PgRunner;
  log: Logger;
  sign: Signer;
  blockPrivateNetworks: boolean;
  /** TTR_ALLOW_NETWORKS: ranges let through that block, for notifications as for targets */
  allowNetworks: readonly Subnet[];
  /** waits before each of the three retries, in seconds */
  retryDelaysSeconds: readonly number[];
}

const TIMEOUT_SECONDS = 10;

/** The distinct notifyUrls of an attempt's policies, and whether to sign what goes there. */
export function notifyTargets(policies: readonly AttemptPolicy[]): { urls: string[]; signing: boolean } {
  const urls = [...new Set(policies.map((p) => p.notifyUrl).filter((u): u is string => u !== null && u !== undefined))];
  return { urls, signing: policies.some((p) => p.signing) };
}

function failureOf(result: AttemptResult): string | null {
  switch (result.kind) {
    // a body that cannot be recorded (a zero byte) is still an answer: its status decides
    case "response":
    case "unrecordable":
      return result.status >= 200 && result.status <= 299 ? null : `HTTP ${result.status}`;
    case "network":
      return result.errorMessage;
    default: {
      const never: never = result;
      return never;
    }
  }
}

export class Notifier {
  private readonly inFlight = new BackgroundWork();

  constructor(private readonly deps: NotifierDeps) {}

  /** Starts the notifications of a dead letter, if any are asked for; does not wait for them. */
  deadLetter(started: StartedAttempt): void {
    const { urls, signing } = notifyTargets(started.policies);
    if (urls.length === 0) return;
    this.inFlight.add(this.send(started, urls, signing), (err) => {
      this.deps.log.error("dead-letter notification failed", { executionId: started.executionId, error: (err as Error).message });
    });
  }

  /** Resolves when the notifications under way have ended (shutdown). */
  async drain(): Promise<void> {
    await this.inFlight.drain();
  }

  private async send(started: StartedAttempt, urls: string[], signing: boolean): Promise<void> {
    const { db } = this.deps;
    // A retention pass may have moved the trigger to a newer day since the attempt started: then any day.
    const underItsDay = await loadTriggers(db, started.projectId, [started.triggerId], [started.partDay]);
    const [trigger] = underItsDay.length > 0 ? underItsDay : await loadTriggers(db, started.projectId, [started.triggerId]);
    const execution = (await triggerExecutions(db, started.projectId, started.triggerId)).find((e) => e.id === started.executionId);
    if (!trigger || !execution) return; // removed meanwhile
    const body = new TextEncoder().encode(JSON.stringify({ event: "dead_letter", execution: executionJson(execution), trigger: triggerJson(trigger) }));
    await Promise.all(urls.map((url) => this.deliver(started, url, body, signing)));
  }

  private async deliver(started: StartedAttempt, url: string, body: Uint8Array, signing: boolean): Promise<void> {
    const { db, retryDelaysSeconds } = this.deps;
    const tries = 1 + retryDelaysSeconds.length;
    let day = started.partDay;
    for (let n = 1; n <= tries; n++) {
      let error: string | null;
      let cause: string | undefined;
      try {
        // one id per notification, kept across its tries so that receivers can drop repeats
        const extraHeaders = signing ? await this.deps.sign(started.projectId, `dead_letter_${started.executionId}`, body) : [];
        const result = await sendAttempt(
          { method: "POST", url, headers: [["content-type", "application/json"]], body, source: "item", extraHeaders },
          { timeoutSeconds: TIMEOUT_SECONDS, blockPrivateNetworks: this.deps.blockPrivateNetworks, allowNetworks: this.deps.allowNetworks, reapGraceSeconds: 0 },
        );
        error = failureOf(result);
        if (result.kind === "network") cause = result.cause;
      } catch (err) {
        if ((err as { _tag?: string })._tag !== "SigningFailed") throw err;
        error = `Signing failed: ${(err as Error).message}`;
      }
      const status = error === null ? "sent" : n < tries ? "retrying" : "failed";
      const record = (on: string) => db.named("notify_record", [started.executionId, on, status, n, error]);
      if ((await record(day)).length === 0) {
        // moved to a newer day by a retention pass since it was sent: recorded there
        const moved = await executionDay(db, started.executionId);
        if (moved !== null && moved !== day) {
          day = moved;
          await record(day);
        }
      }
      // A receiver's URL can carry a password, a token in its query or a
      // secret path (as chat webhooks do): the log names its origin only.
      const receiver = new URL(url).origin;
      const logged = error === null ? null : error.replaceAll(withoutCredentials(url), receiver);
      this.deps.log.info("dead-letter notification", { executionId: started.executionId, receiver, try: n, status, error: logged, cause });
      if (error === null) return;
      if (n < tries) await new Promise((r) => setTimeout(r, retryDelaysSeconds[n - 1]! * 1000));
    }
  }
}
