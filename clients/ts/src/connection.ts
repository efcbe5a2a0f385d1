import { credentials, Metadata, type ChannelCredentials, type ChannelOptions } from "@grpc/grpc-js";

/** TLS to the server: PEM contents, not file names. */
export interface TlsOptions {
  /** CA bundle the server's certificate must chain to; default: the system's roots. */
  readonly ca?: string | Buffer;
  /** Client certificate and key, for a server that requires mTLS. */
  readonly cert?: string | Buffer;
  readonly key?: string | Buffer;
  /** The name the server's certificate must carry, when it differs from the address's host. */
  readonly serverName?: string;
}

export interface ClientOptions {
  /** Default deadline of unary calls (ms). Default 30 s. */
  readonly timeoutMs?: number;
  /** TLS settings; without them (and without `credentials`) the channel is plaintext, as on loopback or behind a mesh. */
  readonly tls?: TlsOptions;
  /** Channel credentials built by the caller; they take the place of `tls`. */
  readonly credentials?: ChannelCredentials;
  /** Bearer token sent with every call as `authorization: Bearer <token>` (over plaintext too). */
  readonly token?: string;
}

/** What a generated client is constructed with, from {@link ClientOptions}; the same for every service's client. */
export interface Connection {
  readonly credentials: ChannelCredentials;
  readonly channelOptions: ChannelOptions;
  /** Metadata every call carries: the bearer token, if any. */
  readonly metadata: () => Metadata;
}

export function connection(options: ClientOptions): Connection {
  const channel = options.credentials ?? (options.tls ? tlsCredentials(options.tls) : credentials.createInsecure());
  const serverName = options.tls?.serverName;
  const token = options.token;
  return {
    credentials: channel,
    channelOptions: serverName ? { "grpc.ssl_target_name_override": serverName, "grpc.default_authority": serverName } : {},
    metadata: () => {
      const md = new Metadata();
      if (token) md.set("authorization", `Bearer ${token}`);
      return md;
    },
  };
}

function tlsCredentials(tls: TlsOptions): ChannelCredentials {
  const pem = (value: string | Buffer | undefined): Buffer | null => (value === undefined ? null : Buffer.from(value));
  if ((tls.cert === undefined) !== (tls.key === undefined)) throw new TypeError("tls.cert and tls.key go together");
  return credentials.createSsl(pem(tls.ca), pem(tls.key), pem(tls.cert));
}
