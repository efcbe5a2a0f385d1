import { readFileSync } from "node:fs";
import { createSecureContext } from "node:tls";
import { createPrivateKey, X509Certificate } from "node:crypto";
import * as grpc from "@grpc/grpc-js";
import { ValueError } from "../config/index.js";

/** PEM files of the server's TLS identity and, for mTLS, the CA its clients' certificates must chain to. */
export interface TlsFiles {
  readonly cert: string;
  readonly key: string;
  /** "" when clients need no certificate. */
  readonly clientCa: string;
}

function readPem(option: string, file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (err) {
    throw new ValueError(option, `cannot read ${file}: ${(err as Error).message}`);
  }
}

/**
 * Certificates read once at start-up, handed to grpc-js through its certificate-provider interface. That
 * interface is the one way grpc-js offers to request a client certificate without making the handshake fail
 * when there is none: the RPC is then refused with UNAUTHENTICATED and a message (access.ts), and health and
 * reflection stay reachable. Delivered on the next tick, before the server can accept a connection.
 */
class LoadedCertificates implements grpc.experimental.CertificateProvider {
  constructor(
    private readonly identity: grpc.experimental.IdentityCertificateUpdate,
    private readonly ca: grpc.experimental.CaCertificateUpdate | null,
  ) {}
  addCaCertificateListener(listener: grpc.experimental.CaCertificateUpdateListener): void {
    process.nextTick(listener, this.ca);
  }
  removeCaCertificateListener(): void {}
  addIdentityCertificateListener(listener: grpc.experimental.IdentityCertificateUpdateListener): void {
    process.nextTick(listener, this.identity);
  }
  removeIdentityCertificateListener(): void {}
}

/**
 * Server credentials: plaintext without files, else TLS with the given identity and, with a client CA, client
 * certificates requested and verified against it. Unreadable or mismatched files fail here, at start-up, naming
 * the option.
 */
export function serverCredentials(tls: TlsFiles | undefined): grpc.ServerCredentials {
  if (!tls) return grpc.ServerCredentials.createInsecure();
  const identity = { certificate: readPem("tls-cert", tls.cert), privateKey: readPem("tls-key", tls.key) };
  // Each file is parsed on its own first: the pair's check below cannot tell which of them is garbage.
  try {
    new X509Certificate(identity.certificate);
  } catch (err) {
    throw new ValueError("tls-cert", `${tls.cert} holds no PEM certificate: ${(err as Error).message}`);
  }
  try {
    createPrivateKey(identity.privateKey);
  } catch (err) {
    throw new ValueError("tls-key", `${tls.key} holds no PEM private key: ${(err as Error).message}`);
  }
  try {
    createSecureContext({ cert: identity.certificate, key: identity.privateKey });
  } catch (err) {
    throw new ValueError("tls-key", `${tls.key} does not fit ${tls.cert}: ${(err as Error).message}`);
  }
  let ca: grpc.experimental.CaCertificateUpdate | null = null;
  if (tls.clientCa) {
    ca = { caCertificate: readPem("client-ca", tls.clientCa) };
    try {
      new X509Certificate(ca.caCertificate);
    } catch (err) {
      throw new ValueError("client-ca", `${tls.clientCa} holds no PEM certificate: ${(err as Error).message}`);
    }
  }
  const provider = new LoadedCertificates(identity, ca);
  // grpc-js names these parameters the wrong way round: the first is the identity, the second the (optional) CA.
  return grpc.experimental.createCertificateProviderServerCredentials(provider, ca ? provider : null, false);
}
