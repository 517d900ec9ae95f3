// Passwords for the CLI: from standard input (--password-stdin), from a prompt on a terminal
// that does not echo, or (still accepted) from --password, which other users of the machine can
// read in `ps` and the shell's history, and is warned about.
import { CliError } from "./output.ts";

export interface PasswordFlags {
  password?: string;
  passwordStdin?: boolean;
}

export const PASSWORD_WARNING =
  "warning: --password is visible to other users of this machine (ps, /proc) and stays in your shell's history; use --password-stdin or the prompt";

/** The whole of standard input, one trailing newline removed (`echo pw |` and a file written by an editor both end in one). */
export async function passwordFromStdin(): Promise<string> {
  const text = await Bun.stdin.text();
  return text.replace(/\r?\n$/, "");
}

/** Reads one line from the terminal with echo off; Ctrl-C or Ctrl-D give up. */
export function promptHidden(question: string): Promise<string> {
  const stdin = process.stdin;
  // Echo goes off before the question shows: what is typed as soon as it appears is never echoed.
  stdin.setRawMode(true);
  process.stderr.write(question);
  return new Promise((resolve, reject) => {
    let typed = "";
    const done = (outcome: () => void) => {
      stdin.setRawMode(false);
      stdin.pause();
      stdin.off("data", onData);
      process.stderr.write("\n");
      outcome();
    };
    const onData = (chunk: Buffer) => {
      for (const char of chunk.toString("utf8")) {
        if (char === "\r" || char === "\n") return done(() => resolve(typed));
        if (char === "\u0003" || char === "\u0004") return done(() => reject(new CliError("no password given", 130)));
        if (char === "\u007f" || char === "\b") typed = typed.slice(0, -1);
        else typed += char;
      }
    };
    stdin.resume();
    stdin.on("data", onData);
  });
}

/**
 * The password a command was given: `--password-stdin`, `--password` (with the warning), or a
 * prompt (typed twice) when neither is given and standard input is a terminal. Undefined when
 * there is none to read: the account has no password.
 */
export async function readPassword(flags: PasswordFlags): Promise<string | undefined> {
  if (flags.password !== undefined && flags.passwordStdin) throw new CliError("give --password or --password-stdin, not both");
  if (flags.passwordStdin) return passwordFromStdin();
  if (flags.password !== undefined) {
    console.error(PASSWORD_WARNING);
    return flags.password;
  }
  if (process.stdin.isTTY !== true) return undefined;
  const first = await promptHidden("Password (empty for none): ");
  if (first === "") return undefined;
  if ((await promptHidden("Password again: ")) !== first) throw new CliError("the two passwords differ");
  return first;
}
