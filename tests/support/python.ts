// A Python SDK run as a child process by the client-library tests: whether its module can be
// had on this machine (one quiet, bounded `pip install` when it cannot be imported yet), and
// one script run whose last stdout line is its JSON outcome.

/** Whether `import <module>` works, trying `pip install <module>` once when it does not; the reason when not. */
export function pythonModule(module: string): { ok: true } | { ok: false; reason: string } {
  const importable = () => {
    try {
      return Bun.spawnSync(["python3", "-c", `import ${module}`], { stdout: "ignore", stderr: "ignore", timeout: 30_000 }).exitCode === 0;
    } catch {
      return false; // no python3 at all
    }
  };
  if (importable()) return { ok: true };
  try {
    const pip = Bun.spawnSync(["python3", "-m", "pip", "install", "--quiet", "--disable-pip-version-check", module], {
      stdout: "ignore", stderr: "pipe", timeout: 90_000,
    });
    if (importable()) return { ok: true };
    const said = pip.stderr.toString().trim().split("\n").at(-1) ?? "";
    return { ok: false, reason: `python3 -m pip install ${module} failed (exit ${pip.exitCode ?? "timeout"}): ${said}` };
  } catch (error) {
    return { ok: false, reason: `python3 is not available: ${(error as Error).message}` };
  }
}

/**
 * Runs `script` with `env` added and returns its last stdout line parsed. Spawned
 * asynchronously: the gateway answering the script lives in the test's own process.
 */
export async function runPython(script: string, env: Record<string, string>): Promise<any> {
  const child = Bun.spawn(["python3", "-c", script], { env: { ...process.env, ...env }, stdout: "pipe", stderr: "pipe", timeout: 60_000 });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  if (code !== 0) throw new Error(`python exited ${code}: ${stderr}`);
  return JSON.parse(stdout.trim().split("\n").at(-1)!);
}
