#!/bin/sh
# Test certificates for the gRPC server's TLS and mTLS, shared by the TypeScript, Go and Python suites:
#   ca.crt            the CA that signs the server's certificate and trusted clients' certificates
#   server.crt/.key   CN localhost; SANs localhost, 127.0.0.1 and syncworker.test (to try a server-name override)
#   client.crt/.key   a client certificate signed by ca.crt
#   other-ca.crt      a second, unrelated CA
#   other.crt/.key    a client certificate signed by other-ca.crt, which the server must refuse
# Usage: tls-pki.sh DIR (created if missing). RSA 2048, valid for a day.
set -eu
dir=$1
mkdir -p "$dir"
cd "$dir"
ca() { openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj "/CN=$1" -keyout "$2.key" -out "$2.crt" 2>/dev/null; }
# leaf NAME CN CA EXTENSIONS
leaf() {
  openssl req -newkey rsa:2048 -nodes -subj "/CN=$2" -keyout "$1.key" -out "$1.csr" 2>/dev/null
  printf '%s\n' "$4" >"$1.ext"
  openssl x509 -req -in "$1.csr" -CA "$3.crt" -CAkey "$3.key" -CAcreateserial -days 1 -out "$1.crt" -extfile "$1.ext" 2>/dev/null
  rm -f "$1.csr" "$1.ext"
}
ca syncworker-test-ca ca
ca syncworker-other-ca other-ca
leaf server localhost ca "subjectAltName=DNS:localhost,IP:127.0.0.1,DNS:syncworker.test
extendedKeyUsage=serverAuth"
leaf client test-client ca "extendedKeyUsage=clientAuth"
leaf other intruder other-ca "extendedKeyUsage=clientAuth"
