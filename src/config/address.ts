import { isIP } from "node:net";
import { ValueError } from "./value-error.js";

/** A TCP endpoint. `host` is bare: an IPv6 literal without the brackets `HOST:PORT` writes it with. */
export interface HostPort {
  readonly host: string;
  readonly port: number;
}

/**
 * Parses `HOST:PORT` as every listen flag and the CLI's `--address` take it: a name, an IPv4 address, or an IPv6
 * address in brackets (`[::1]:0`); port 0 asks for a free port. A bare IPv6 address is refused: in `::1:50051`
 * nothing tells the port from the last group.
 */
export function parseHostPort(option: string, text: string): HostPort {
  const match = /^(?:\[([^\]]+)\]|([^[\]:]+)):(\d{1,5})$/.exec(text);
  const host = match?.[1] ?? match?.[2];
  const port = Number(match?.[3]);
  if (!match || host === undefined || port > 65535) {
    const hint = isIP(text) === 6 || text.split(":").length > 2 ? "; write an IPv6 address in brackets, as [::1]:50051" : "";
    throw new ValueError(option, `"${text}" is not HOST:PORT (port 0 picks a free port)${hint}`);
  }
  if (match[1] !== undefined && isIP(host) !== 6) throw new ValueError(option, `"${host}" in brackets is not an IPv6 address`);
  return Object.freeze({ host, port });
}

/** `HOST:PORT` with an IPv6 host in brackets: what parseHostPort reads back, and what gRPC targets and URLs expect. */
export function formatHostPort({ host, port }: HostPort): string {
  return isIP(host) === 6 ? `[${host}]:${port}` : `${host}:${port}`;
}
