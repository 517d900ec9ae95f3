// Debian's PgBouncer in transaction-pooling mode in front of the test PostgreSQL, as managed
// Postgres offers hand out first: each transaction may run on another server connection.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const BINARY = "/usr/sbin/pgbouncer";

export const pgbouncerInstalled = (): boolean => existsSync(BINARY) && process.getuid?.() === 0;

export interface Pooler {
  /** The database URL `direct` as reached through the pooler. */
  through(direct: string): string;
  stop(): Promise<void>;
}

function freePort(): number {
  const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const { port } = probe;
  probe.stop(true);
  return port;
}

/** Starts a PgBouncer of the test's own (run as `postgres`: it refuses root) in front of `server`. */
export async function startPgbouncer(server: string): Promise<Pooler> {
  const upstream = new URL(server);
  const dir = mkdtempSync(join(tmpdir(), "gateway-pgbouncer-"));
  const port = freePort();
  writeFileSync(join(dir, "userlist.txt"), '"postgres" ""\n');
  writeFileSync(join(dir, "pgbouncer.ini"), [
    "[databases]",
    `* = host=${upstream.hostname} port=${upstream.port || 5432}`,
    "[pgbouncer]",
    "listen_addr = 127.0.0.1",
    `listen_port = ${port}`,
    "unix_socket_dir =",
    "auth_type = trust",
    `auth_file = ${join(dir, "userlist.txt")}`,
    "pool_mode = transaction",
    "max_client_conn = 1000",
    "default_pool_size = 10",
    `logfile = ${join(dir, "pgbouncer.log")}`,
    "",
  ].join("\n"));
  await Bun.spawn(["chown", "-R", "postgres:postgres", dir]).exited;
  const proc = Bun.spawn(["runuser", "-u", "postgres", "--", BINARY, join(dir, "pgbouncer.ini")], { stdout: "ignore", stderr: "pipe" });
  for (let i = 0; i < 100; i++) {
    const ready = await Bun.connect({ hostname: "127.0.0.1", port, socket: { data() {} } }).then((s) => (s.end(), true), () => false);
    if (ready) break;
    await Bun.sleep(50);
  }
  return {
    through: (direct) => {
      const url = new URL(direct);
      url.hostname = "127.0.0.1";
      url.port = String(port);
      return url.toString();
    },
    stop: async () => {
      proc.kill();
      await proc.exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
