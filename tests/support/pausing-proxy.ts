// A TCP proxy on loopback that can be paused: while paused it passes nothing either way and
// keeps what it receives, as a network partition does (TCP retransmits once it heals); on
// resume it delivers what it kept. Connections stay open throughout.
import type { Socket } from "bun";

export interface PausingProxy {
  port: number;
  pause(): void;
  resume(): void;
  /** Bytes received and kept back since the last pause: proof that someone is waiting on the other side. */
  heldBytes(): number;
  stop(): void;
}

/** Bytes bound for one socket: written at once while flowing, queued while paused or when the socket is full. */
class Outbox {
  private queue: Uint8Array[] = [];
  socket: Socket<unknown> | null = null;

  get queuedBytes(): number {
    return this.queue.reduce((sum, bytes) => sum + bytes.byteLength, 0);
  }

  constructor(private readonly paused: () => boolean) {}

  send(bytes: Uint8Array): void {
    this.queue.push(new Uint8Array(bytes)); // the caller's buffer is reused after the callback
    this.flush();
  }

  flush(): void {
    while (this.socket && !this.paused() && this.queue.length > 0) {
      const next = this.queue[0] as Uint8Array;
      const written = this.socket.write(next);
      if (written < next.byteLength) {
        this.queue[0] = next.subarray(Math.max(written, 0));
        return; // the socket's drain event flushes the rest
      }
      this.queue.shift();
    }
  }
}

interface Link {
  toClient: Outbox;
  toTarget: Outbox;
  target: Socket<unknown> | null;
}

export async function startPausingProxy(target: { hostname: string; port: number }): Promise<PausingProxy> {
  let paused = false;
  const links = new Set<Link>();
  const isPaused = () => paused;

  const listener = Bun.listen<Link>({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open(client) {
        const link: Link = { toClient: new Outbox(isPaused), toTarget: new Outbox(isPaused), target: null };
        link.toClient.socket = client as Socket<unknown>;
        client.data = link;
        links.add(link);
        void Bun.connect({
          ...target,
          socket: {
            data: (_socket, bytes) => link.toClient.send(bytes),
            drain: () => link.toTarget.flush(),
            close: () => void client.end(),
            error: () => void client.end(),
          },
        }).then(
          (socket) => {
            link.target = socket as Socket<unknown>;
            link.toTarget.socket = link.target;
            link.toTarget.flush();
          },
          () => void client.end(),
        );
      },
      data: (client, bytes) => client.data.toTarget.send(bytes),
      drain: (client) => client.data.toClient.flush(),
      close(client) {
        client.data.target?.end();
        links.delete(client.data);
      },
      error: (client) => void client.data.target?.end(),
    },
  });

  return {
    port: listener.port,
    pause: () => {
      paused = true;
    },
    resume: () => {
      paused = false;
      for (const link of links) {
        link.toClient.flush();
        link.toTarget.flush();
      }
    },
    heldBytes: () => [...links].reduce((sum, link) => sum + link.toClient.queuedBytes + link.toTarget.queuedBytes, 0),
    stop: () => listener.stop(true),
  };
}
