#!/usr/bin/env bun
// The `gateway` executable: the HTTP server (`gateway serve`) and the admin CLI in one binary.
import { runCli } from "./cli/program.ts";

// Every file this process creates is readable by its owner only: the SQLite database and the
// -wal and -shm files SQLite makes itself, the key file beside it, backups and exports. One umask
// at start covers them all from their creation, where a chmod after each open would leave a
// moment of exposure and miss the files SQLite creates on its own. Files made before (an older
// database) keep their mode: `gateway doctor` warns about a readable one.
process.umask(0o077);

const code = await runCli(process.argv.slice(2));
// `serve` keeps the process alive through its listening socket; every other command exits here.
if (code !== 0 || !process.argv.slice(2).includes("serve")) process.exitCode = code;
