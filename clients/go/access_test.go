package syncworker_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"

	syncworker "github.com/syncworker/syncworker/clients/go"
	pb "github.com/syncworker/syncworker/clients/go/gen/syncworker/v1"
)

const (
	writerToken = "writer-token-0123456789"
	readerToken = "reader-token-0123456789"
)

// testPKI writes the repository's test certificates (test/harness/tls-pki.sh, openssl) into a temporary directory.
func testPKI(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if out, err := exec.Command("sh", filepath.Join(repoRoot, "test", "harness", "tls-pki.sh"), dir).CombinedOutput(); err != nil {
		t.Fatalf("tls-pki.sh: %v\n%s", err, out)
	}
	return dir
}

func dialWith(t *testing.T, addr string, opts ...grpc.DialOption) *syncworker.Client {
	t.Helper()
	c, err := syncworker.Dial(addr, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func withTLS(t *testing.T, cfg syncworker.TLSConfig) grpc.DialOption {
	t.Helper()
	opt, err := syncworker.WithTLS(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return opt
}

func wantCode(t *testing.T, what string, err error, code codes.Code) {
	t.Helper()
	if !syncworker.IsCode(err, code) {
		t.Fatalf("%s: got %v, want %s", what, err, code)
	}
}

func TestMutualTLS(t *testing.T) {
	pki := testPKI(t)
	at := func(name string) string { return filepath.Join(pki, name) }
	addr := startServer(t, "--tls-cert", at("server.crt"), "--tls-key", at("server.key"), "--client-ca", at("ca.crt"))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	_, err := dialWith(t, addr, withTLS(t, syncworker.TLSConfig{CAFile: at("ca.crt")})).GetStatus(ctx)
	wantCode(t, "no client certificate", err, codes.Unauthenticated)
	other := dialWith(t, addr, withTLS(t, syncworker.TLSConfig{CAFile: at("ca.crt"), CertFile: at("other.crt"), KeyFile: at("other.key")}))
	_, err = other.GetStatus(ctx)
	wantCode(t, "a certificate from another CA", err, codes.Unauthenticated)

	good := dialWith(t, addr, withTLS(t, syncworker.TLSConfig{CAFile: at("ca.crt"), CertFile: at("client.crt"), KeyFile: at("client.key"), ServerName: "syncworker.test"}))
	if s, err := good.Update(ctx, &pb.UpdateRequest{Generation: 1, Desired: &pb.DesiredUpdate{Image: payload("1.0.0")}}); err != nil || s.GetGeneration() != 1 {
		t.Fatalf("Update with the CA's client certificate: %v %v", s, err)
	}
	if s, err := good.GetStatus(ctx); err != nil || s.GetGeneration() != 1 {
		t.Fatalf("GetStatus with the CA's client certificate: %v %v", s, err)
	}
}

func TestBearerTokens(t *testing.T) {
	dir := t.TempDir()
	tokens := filepath.Join(dir, "tokens.csv")
	if err := os.WriteFile(tokens, []byte(writerToken+",alice,writer\n"+readerToken+",bob,reader\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	addr := startServer(t, "--token-file", tokens)
	plaintext := grpc.WithTransportCredentials(insecure.NewCredentials())
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	update := &pb.UpdateRequest{Generation: 1, Desired: &pb.DesiredUpdate{Image: payload("1.0.0")}}

	_, err := dialWith(t, addr, plaintext).GetStatus(ctx)
	wantCode(t, "no token", err, codes.Unauthenticated)
	_, err = dialWith(t, addr, plaintext, syncworker.WithToken("not-a-token-at-all")).GetStatus(ctx)
	wantCode(t, "a wrong token", err, codes.Unauthenticated)

	reader := dialWith(t, addr, plaintext, syncworker.WithToken(readerToken))
	if _, err := reader.GetStatus(ctx); err != nil {
		t.Fatalf("a reader's GetStatus: %v", err)
	}
	_, err = reader.Update(ctx, update)
	wantCode(t, "a reader's Update", err, codes.PermissionDenied)

	writer := dialWith(t, addr, plaintext, syncworker.WithToken(writerToken))
	if s, err := writer.Update(ctx, update); err != nil || s.GetGeneration() != 1 {
		t.Fatalf("a writer's Update: %v %v", s, err)
	}
}
