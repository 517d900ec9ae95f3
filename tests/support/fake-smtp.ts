// A real SMTP server (the smtp-server package) on a loopback port that keeps every message it
// accepts, and can be told to refuse connections, like a mail server that is down.
import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";

export interface ReceivedMail {
  from: string;
  to: string[];
  /** The raw message: headers and body. */
  raw: string;
  /** The body, quoted-printable decoded (for ASCII text). */
  text: string;
}

const decodeQuotedPrintable = (body: string): string =>
  body.replace(/=\r?\n/g, "").replace(/=([0-9A-F]{2})/g, (_match, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));

export interface FakeSmtp {
  /** For SMTP_URL. */
  url: string;
  received: ReceivedMail[];
  /** Connection attempts refused while down. */
  refused: number;
  setDown(down: boolean): void;
  stop(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

export async function startFakeSmtp(): Promise<FakeSmtp> {
  const received: ReceivedMail[] = [];
  let down = false;
  const state = { refused: 0 };
  const server = new SMTPServer({
    // Plain SMTP on loopback: no TLS upgrade and no login to negotiate.
    disabledCommands: ["STARTTLS", "AUTH"],
    authOptional: true,
    logger: false,
    onConnect(_session, callback) {
      if (!down) return callback();
      state.refused++;
      const refusal = Object.assign(new Error("Service not available"), { responseCode: 421 });
      callback(refusal);
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        const raw = Buffer.concat(chunks).toString("utf8");
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
          to: session.envelope.rcptTo.map((r) => r.address),
          raw,
          text: decodeQuotedPrintable(raw.slice(raw.indexOf("\r\n\r\n") + 4)),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.server.address() as AddressInfo;
  const stop = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    get refused() {
      return state.refused;
    },
    setDown: (value) => {
      down = value;
    },
    stop,
    [Symbol.asyncDispose]: stop,
  };
}
