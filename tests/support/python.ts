// A Python SDK run as a child process by the client-library tests: whether its module can be
// had on this machine, and one script run whose last stdout line is its JSON outcome.
//
// When the machine's python3 lacks the module, it is installed into a virtual environment of
// the project's own, node_modules/.cache/python/<module> (once, saying so; `make clean` removes
// it), never into the system's or the user's Python: a test run must not change what other
// programs on the machine import, and Debian's Python refuses such installs anyway (PEP 668).
import { existsSync, mkdirSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";

const VENVS = new URL("../../node_modules/.cache/python/", import.meta.url).pathname;

const importable = (python: string, module: string): boolean => {
  try {
    return Bun.spawnSync([python, "-c", `import ${module}`], { stdout: "ignore", stderr: "ignore", timeout: 30_000 }).exitCode === 0;
  } catch {
    return false; // no such interpreter
  }
};

/** The last line a failed step wrote on stderr, to say why. */
const lastLine = (run: { stderr: Buffer | undefined }) => run.stderr?.toString().trim().split("\n").at(-1) ?? "";

/** Makes the module's own virtual environment: built aside and renamed into place only once complete. */
function installIntoVenv(module: string, venv: string): string | null {
  console.log(`note: installing the Python ${module} package into ${venv} (a virtual environment of the project's own, not the system Python) for the client-library tests`);
  mkdirSync(VENVS, { recursive: true });
  const building = `${venv}.building-${process.pid}`;
  try {
    const made = Bun.spawnSync(["python3", "-m", "venv", building], { stdout: "ignore", stderr: "pipe", timeout: 60_000 });
    if (made.exitCode !== 0) return `python3 -m venv failed (exit ${made.exitCode ?? "timeout"}; Debian: apt-get install python3-venv): ${lastLine(made)}`;
    const pip = Bun.spawnSync([join(building, "bin", "python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", module], {
      stdout: "ignore", stderr: "pipe", timeout: 120_000,
    });
    if (pip.exitCode !== 0) return `pip install ${module} into ${venv} failed (exit ${pip.exitCode ?? "timeout"}): ${lastLine(pip)}`;
    if (!existsSync(venv)) renameSync(building, venv);
    return null;
  } catch (error) {
    return `python3 is not available: ${(error as Error).message}`;
  } finally {
    rmSync(building, { recursive: true, force: true });
  }
}

/** The interpreter that can `import <module>`: the machine's python3, or the project's own virtual environment for it; the reason when neither. */
export function pythonModule(module: string): { ok: true; interpreter: string } | { ok: false; reason: string } {
  if (importable("python3", module)) return { ok: true, interpreter: "python3" };
  const venv = join(VENVS, module);
  const interpreter = join(venv, "bin", "python");
  if (importable(interpreter, module)) return { ok: true, interpreter };
  rmSync(venv, { recursive: true, force: true }); // a broken one (its base Python gone): made again
  const failed = installIntoVenv(module, venv);
  if (failed) return { ok: false, reason: failed };
  return importable(interpreter, module) ? { ok: true, interpreter } : { ok: false, reason: `${interpreter} cannot import ${module} after installing it` };
}

/**
 * Runs `script` with `interpreter` (from `pythonModule`) and `env` added, and returns its last
 * stdout line parsed. Spawned asynchronously: the gateway answering the script lives in the
 * test's own process.
 */
export async function runPython(interpreter: string, script: string, env: Record<string, string>): Promise<any> {
  const child = Bun.spawn([interpreter, "-c", script], { env: { ...process.env, ...env }, stdout: "pipe", stderr: "pipe", timeout: 60_000 });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  if (code !== 0) throw new Error(`python exited ${code}: ${stderr}`);
  return JSON.parse(stdout.trim().split("\n").at(-1)!);
}
