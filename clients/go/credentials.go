package syncworker

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
)

// TLSConfig names the PEM files for a TLS connection to syncworker. Every field is optional: without CAFile the
// system's roots are trusted; CertFile and KeyFile (together) present a client certificate to a server that
// requires mTLS (serve --client-ca); ServerName is the name the server's certificate must carry when it differs
// from the target's host.
type TLSConfig struct {
	CAFile     string
	CertFile   string
	KeyFile    string
	ServerName string
}

// WithTLS returns the dial option for a TLS connection; pass it to Dial instead of the plaintext default.
func WithTLS(cfg TLSConfig) (grpc.DialOption, error) {
	tc := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: cfg.ServerName}
	if cfg.CAFile != "" {
		pem, err := os.ReadFile(cfg.CAFile)
		if err != nil {
			return nil, fmt.Errorf("syncworker: CA file: %w", err)
		}
		tc.RootCAs = x509.NewCertPool()
		if !tc.RootCAs.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("syncworker: %s holds no PEM certificate", cfg.CAFile)
		}
	}
	if (cfg.CertFile == "") != (cfg.KeyFile == "") {
		return nil, fmt.Errorf("syncworker: CertFile and KeyFile go together")
	}
	if cfg.CertFile != "" {
		pair, err := tls.LoadX509KeyPair(cfg.CertFile, cfg.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("syncworker: client certificate: %w", err)
		}
		tc.Certificates = []tls.Certificate{pair}
	}
	return grpc.WithTransportCredentials(credentials.NewTLS(tc)), nil
}

// bearer sends a token with every call.
type bearer string

func (b bearer) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	return map[string]string{"authorization": "Bearer " + string(b)}, nil
}

// RequireTransportSecurity is false so a token also works on loopback or behind a mesh, as the server allows.
func (bearer) RequireTransportSecurity() bool { return false }

// WithToken returns the dial option that sends token as "authorization: Bearer <token>" on every call (serve
// --token-file or --authn kube). Dial uses plaintext only when given no options at all, so pair it with WithTLS,
// or with grpc.WithTransportCredentials(insecure.NewCredentials()) on loopback.
func WithToken(token string) grpc.DialOption {
	return grpc.WithPerRPCCredentials(bearer(token))
}
