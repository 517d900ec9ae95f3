// A PostgreSQL cluster of a test's own, on a free port, that the test may restart without
// disturbing the shared one every other test uses. Debian's server binaries, run as `postgres`
// (initdb and the server refuse root).
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "./free-port.ts";

const PG_ROOT = "/usr/lib/postgresql";

/** The directory of the installed server's binaries, or null when there is none to run. */
export function postgresBinaries(): string | null {
  if (!existsSync(PG_ROOT) || process.getuid?.() !== 0) return null;
  const version = readdirSync(PG_ROOT).sort().at(-1);
  const bin = version === undefined ? null : join(PG_ROOT, version, "bin");
  return bin !== null && existsSync(join(bin, "initdb")) ? bin : null;
}

export interface OwnCluster {
  /** postgres://postgres@127.0.0.1:<port>/postgres */
  url: string;
  /**
   * Stops the server as a restart or failover does (`-m fast`: every session ended at once),
   * leaves it down for `downMs` (new connections refused), then starts it again.
   */
  restart(downMs: number): Promise<void>;
  stop(): Promise<void>;
}

async function asPostgres(args: string[]): Promise<void> {
  const proc = Bun.spawn(["runuser", "-u", "postgres", "--", ...args], { stdout: "pipe", stderr: "pipe" });
  if ((await proc.exited) !== 0) throw new Error(`${args.join(" ")} failed: ${await new Response(proc.stderr).text()}`);
}


export async function startOwnCluster(bin: string): Promise<OwnCluster> {
  const dir = mkdtempSync(join(tmpdir(), "gateway-pg-"));
  await Bun.spawn(["chown", "postgres:postgres", dir]).exited;
  const data = join(dir, "data");
  await asPostgres([join(bin, "initdb"), "-D", data, "-A", "trust", "-U", "postgres", "--no-sync"]);
  const port = freePort();
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=50`;
  const ctl = (...args: string[]) => asPostgres([join(bin, "pg_ctl"), "-D", data, "-l", join(dir, "log"), "-o", options, "-w", ...args]);
  await ctl("start");
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    restart: async (downMs) => {
      await ctl("stop", "-m", "fast");
      await Bun.sleep(downMs);
      await ctl("start");
    },
    stop: async () => {
      await ctl("stop", "-m", "immediate").catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
