// A connection of its own that LISTENs on one channel for as long as the
// process runs, and connects again a second after it is lost (a notice
// sent meanwhile is missed). For notices that only save work, such as
// partitions_changed.sql's: a missed one costs a slower first call.
import pg from "pg";

export interface NoticeListener {
  close(): Promise<void>;
}

/** A client this listener is done with: its late errors and its end are no longer news. */
function discard(client: pg.Client): void {
  client.removeAllListeners();
  client.on("error", () => {});
  void client.end().catch(() => {});
}

export function listenForNotices(databaseUrl: string, channel: string, onNotice: () => void, applicationName: string, retryMs = 1000): NoticeListener {
  let client: pg.Client | null = null;
  let closed = false;
  let timer: NodeJS.Timeout | null = null;
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
      if (notice.channel === channel) onNotice();
    });
    try {
      await c.connect();
      // the channel is the program's own identifier, never input
      await c.query(`LISTEN ${channel}`);
    } catch {
      drop(c);
      return;
    }
    if (closed) discard(c);
    else client = c;
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
