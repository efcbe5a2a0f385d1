import { once } from "node:events";
import { createConnection, createServer, type AddressInfo, type Socket } from "node:net";

export interface TcpProxy {
  /** host:port to dial instead of the target. */
  readonly address: string;
  /** Connections accepted so far; a reconnect shows up as a second one. */
  readonly accepted: () => number;
  /** Drops every open connection (both directions) while still accepting new ones: a network blip. */
  cut(): void;
  close(): Promise<void>;
}

/**
 * A loopback TCP proxy a test controls, to cut a client's connection mid-stream without touching the server
 * (stopping the server would end the watch cleanly rather than as a dropped connection).
 */
export async function startTcpProxy(target: string): Promise<TcpProxy> {
  const sep = target.lastIndexOf(":");
  const [host, port] = [target.slice(0, sep), Number(target.slice(sep + 1))];
  const open = new Set<Socket>();
  let accepted = 0;
  const server = createServer((client) => {
    accepted++;
    const upstream = createConnection({ host, port });
    for (const [a, b] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      open.add(a);
      a.pipe(b);
      a.on("error", () => b.destroy());
      a.on("close", () => {
        open.delete(a);
        b.destroy();
      });
    }
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port: listenPort } = server.address() as AddressInfo;
  return {
    address: `127.0.0.1:${listenPort}`,
    accepted: () => accepted,
    cut: () => {
      // resetAndDestroy sends RST, as a dropped network path would, rather than an orderly FIN.
      for (const socket of open) socket.resetAndDestroy();
    },
    close: async () => {
      for (const socket of open) socket.destroy();
      server.close();
      await once(server, "close");
    },
  };
}
