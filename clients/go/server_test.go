package syncworker_test

import (
	"bufio"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// repoRoot is the syncworker checkout this module lives in (clients/go).
var repoRoot, _ = filepath.Abs("../..")

// startServer runs a real `syncworker serve` on a free port and stops it when the test ends.
func startServer(t *testing.T, args ...string) string {
	t.Helper()
	// The program from the sources through tsx (the repository's dev dependency), as the repository's tests run it.
	program := []string{"--import", "tsx", filepath.Join(repoRoot, "src", "cli", "bin.ts")}
	// A state directory of its own, so servers of parallel tests never resume each other's state.
	args = append(append(program, "serve", "--listen", "127.0.0.1:0", "--reconcile-interval", "60s", "--operator-delay", "300ms", "--state-dir", t.TempDir()), args...)
	cmd := exec.Command("node", args...)
	cmd.Stderr = io.Discard
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start syncworker: %v", err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
	})
	lines := make(chan string)
	go func() {
		scanner := bufio.NewScanner(stdout)
		for scanner.Scan() {
			lines <- scanner.Text()
		}
		close(lines)
	}()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case line, ok := <-lines:
			if !ok {
				t.Fatal("syncworker exited before listening")
			}
			if addr, found := strings.CutPrefix(line, "listening on "); found {
				// Keep draining stdout so the server never blocks on a full pipe.
				go func() {
					for range lines {
					}
				}()
				return addr
			}
		case <-timeout:
			t.Fatal("syncworker did not print its address within 30s")
		}
	}
}

// proxy is a loopback TCP proxy the test controls, to drop a client's connection without touching the server.
type proxy struct {
	addr     string
	mu       sync.Mutex
	open     []net.Conn
	accepted int
}

func startProxy(t *testing.T, target string) *proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{addr: ln.Addr().String()}
	t.Cleanup(func() { _ = ln.Close(); p.cut() })
	go func() {
		for {
			client, err := ln.Accept()
			if err != nil {
				return
			}
			upstream, err := net.Dial("tcp", target)
			if err != nil {
				_ = client.Close()
				continue
			}
			p.mu.Lock()
			p.open = append(p.open, client, upstream)
			p.accepted++
			p.mu.Unlock()
			go func() { _, _ = io.Copy(upstream, client); _ = upstream.Close() }()
			go func() { _, _ = io.Copy(client, upstream); _ = client.Close() }()
		}
	}()
	return p
}

// cut drops every open connection with a reset, as a failed network path would; new ones are still accepted.
func (p *proxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.open {
		if tcp, ok := c.(*net.TCPConn); ok {
			_ = tcp.SetLinger(0)
		}
		_ = c.Close()
	}
	p.open = nil
}

func (p *proxy) connections() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.accepted
}

func payload(version string) string {
	return filepath.Join(repoRoot, "examples", "payloads", "demo-"+version)
}

func init() {
	// Lets CI point at another checkout's server.
	if root := os.Getenv("SYNCWORKER_REPO"); root != "" {
		repoRoot = root
	}
}
