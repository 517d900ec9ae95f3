#!/usr/bin/env bun
// The `gateway` executable: the HTTP server (`gateway serve`) and the admin CLI in one binary.
import { runCli } from "./cli/program.ts";

const code = await runCli(process.argv.slice(2));
// `serve` keeps the process alive through its listening socket; every other command exits here.
if (code !== 0 || !process.argv.slice(2).includes("serve")) process.exitCode = code;
