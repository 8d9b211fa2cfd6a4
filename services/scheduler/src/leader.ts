// Only one scheduler replica is active (CONTRACT §9). Leadership is a
// PostgreSQL session advisory lock held on a dedicated connection: when the
// active process dies its connection closes and the lock is free at once; a
// standby polls every second, so it takes over well within 5 s.
import pg from "pg";
import type { Logger } from "@ttr/platform";

/** An arbitrary, fixed lock key: "ttr scheduler". */
const LEADER_LOCK = 7_437_120_001;

export class Leadership {
  private client: pg.Client | null = null;
  private leading = false;
  private stopped = false;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly databaseUrl: string,
    private readonly log: Logger,
    private readonly onChange: (leading: boolean) => void,
  ) {}

  get isLeader(): boolean {
    return this.leading;
  }

  start(): void {
    void this.attempt();
  }

  private schedule(ms: number): void {
    if (!this.stopped) this.timer = setTimeout(() => void this.attempt(), ms);
  }

  private async attempt(): Promise<void> {
    try {
      if (!this.client) {
        const client = new pg.Client({
          connectionString: this.databaseUrl,
          application_name: "ttr-scheduler-leader",
          keepAlive: true,
          keepAliveInitialDelayMillis: 1000,
          connectionTimeoutMillis: 5000,
        });
        client.on("error", (err) => this.lose(`leader connection error: ${err.message}`));
        client.on("end", () => this.lose("leader connection ended"));
        await client.connect();
        this.client = client;
      }
      if (!this.leading) {
        const { rows } = await this.client.query<{ ok: boolean }>("SELECT pg_try_advisory_lock($1) AS ok", [LEADER_LOCK]);
        if (rows[0]?.ok) {
          this.leading = true;
          this.log.info("became the active scheduler");
          this.onChange(true);
        }
      } else {
        // A cheap liveness probe of the connection that holds the lock.
        await this.client.query("SELECT 1");
      }
    } catch (err) {
      this.lose(`leader check failed: ${(err as Error).message}`);
    }
    this.schedule(1000);
  }

  private lose(reason: string): void {
    const client = this.client;
    this.client = null;
    client?.removeAllListeners();
    client?.end().catch(() => {});
    if (this.leading) {
      this.leading = false;
      this.log.warn("lost leadership", { reason });
      this.onChange(false);
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    const client = this.client;
    this.client = null;
    this.leading = false;
    if (client) {
      client.removeAllListeners();
      await client.end().catch(() => {});
    }
  }
}
