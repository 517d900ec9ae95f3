// Debian's PgBouncer in transaction-pooling mode in front of the test PostgreSQL, as managed
// Postgres offers hand out first: each transaction may run on another server connection.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "./free-port.ts";

const BINARY = Bun.which("pgbouncer") ?? "/usr/sbin/pgbouncer";
// PgBouncer refuses to run as root: as root it is started as the `postgres` user (Debian's
// PostgreSQL package creates it); as anyone else, as the user running the tests.
const asRoot = process.getuid?.() === 0;
const hasPostgresUser = (): boolean => Bun.spawnSync(["id", "-u", "postgres"], { stdout: "ignore", stderr: "ignore" }).exitCode === 0;

export const pgbouncerInstalled = (): boolean => existsSync(BINARY) && Bun.which("setpriv") !== null && (!asRoot || hasPostgresUser());

export interface Pooler {
  /** The database URL `direct` as reached through the pooler. */
  through(direct: string): string;
  stop(): Promise<void>;
}


/** Starts a PgBouncer of the test's own in front of `server`, on a free port with its files in a temp dir. */
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
  if (asRoot) await Bun.spawn(["chown", "-R", "postgres:postgres", dir]).exited;
  // setpriv execs PgBouncer in its own place (as postgres under root) with a parent-death
  // signal: a test process that ends without stopping it, or is killed, leaves no pooler behind.
  const proc = Bun.spawn([
    "setpriv", ...(asRoot ? ["--reuid", "postgres", "--regid", "postgres", "--init-groups"] : []), "--pdeathsig", "TERM", "--",
    BINARY, "-q", join(dir, "pgbouncer.ini"),
  ], { stdout: "ignore", stderr: "ignore" });
  let ready = false;
  for (let i = 0; i < 100 && !ready && proc.exitCode === null; i++) {
    ready = await Bun.connect({ hostname: "127.0.0.1", port, socket: { data() {} } }).then((s) => (s.end(), true), () => false);
    if (!ready) await Bun.sleep(50);
  }
  if (!ready) {
    proc.kill();
    const log = existsSync(join(dir, "pgbouncer.log")) ? readFileSync(join(dir, "pgbouncer.log"), "utf8") : "(no log)";
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`pgbouncer did not start on port ${port}:\n${log}`);
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
