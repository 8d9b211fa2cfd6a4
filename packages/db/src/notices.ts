// A connection of its own that LISTENs on one channel for as long as the
// process runs, and connects again a second after it is lost. A notice sent
// while it was away is missed, so once it listens again it calls the
// handler as if one had come ("reconnected"). For notices that only save
// work, such as partitions_changed.sql's: a missed one would cost a slower
// first call.
import pg from "pg";

/** Why a listener calls its handler: a notice came, or one may have come while it was away. */
export type NoticeReason = "notice" | "reconnected";

export interface NoticeListener {
  close(): Promise<void>;
}

/** A client this listener is done with: its late errors and its end are no longer news. */
function discard(client: pg.Client): void {
  client.removeAllListeners();
  client.on("error", () => {});
  void client.end().catch(() => {});
}

export function listenForNotices(databaseUrl: string, channel: string, onNotice: (reason: NoticeReason) => void, applicationName: string, retryMs = 1000): NoticeListener {
  let client: pg.Client | null = null;
  let closed = false;
  let timer: NodeJS.Timeout | null = null;
  let listened = false;
  const retry = () => {
    if (closed || timer !== null) return;
    timer = setTimeout(() => {
      timer = null;
      void connect();
    }, retryMs);
  };
  const drop = (c: pg.Client) => {
    if (client === c) client = null;
    discard(c);
    retry();
  };
  const connect = async () => {
    const c = new pg.Client({ connectionString: databaseUrl, application_name: applicationName, connectionTimeoutMillis: 10_000, keepAlive: true });
    c.on("error", () => drop(c));
    c.on("end", () => drop(c));
    c.on("notification", (notice) => {
      if (notice.channel === channel) onNotice("notice");
    });
    try {
      await c.connect();
      // the channel is the program's own identifier, never input
      await c.query(`LISTEN ${channel}`);
    } catch {
      drop(c);
      return;
    }
    if (closed) {
      discard(c);
      return;
    }
    client = c;
    if (listened) onNotice("reconnected");
    listened = true;
  };
  void connect();
  return {
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      const c = client;
      client = null;
      if (c) discard(c);
    },
  };
}
