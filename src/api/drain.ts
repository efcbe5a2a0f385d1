import type * as grpc from "@grpc/grpc-js";

/** Lets the server finish the calls under way, refusing new ones; what is still open after `graceMs` is cut. */
export function drainServer(server: grpc.Server, graceMs: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      server.forceShutdown();
      resolve();
    }, graceMs);
    server.tryShutdown(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}
