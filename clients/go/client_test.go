package syncworker_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	syncworker "github.com/syncworker/syncworker/clients/go"
	pb "github.com/syncworker/syncworker/clients/go/gen/syncworker/v1"
)

func dial(t *testing.T, addr string) *syncworker.Client {
	t.Helper()
	c, err := syncworker.Dial(addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// watchUntilComplete collects snapshots until version is completely applied; onStatus runs on each one.
func watchUntilComplete(t *testing.T, c *syncworker.Client, version string, onStatus func(*pb.SyncWorkerStatus)) []*pb.SyncWorkerStatus {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var seen []*pb.SyncWorkerStatus
	for s, err := range c.Watch(ctx, syncworker.WatchOptions{}) {
		if err != nil {
			t.Fatalf("watch ended after %d snapshots: %v", len(seen), err)
		}
		seen = append(seen, s)
		if onStatus != nil {
			onStatus(s)
		}
		if syncworker.IsComplete(s, version) {
			break
		}
	}
	return seen
}

func assertStrictlyIncreasing(t *testing.T, seen []*pb.SyncWorkerStatus) {
	t.Helper()
	for i := 1; i < len(seen); i++ {
		if seen[i].GetRevision() <= seen[i-1].GetRevision() {
			t.Fatalf("revision %d after %d: a snapshot repeated or went back", seen[i].GetRevision(), seen[i-1].GetRevision())
		}
	}
}

func TestUpdateWatchToCompletionGetStatus(t *testing.T) {
	c := dial(t, startServer(t))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	accepted, err := c.Update(ctx, &pb.UpdateRequest{Generation: 1, Desired: &pb.DesiredUpdate{Image: payload("1.0.0"), Version: "1.0.0"}})
	if err != nil {
		t.Fatal(err)
	}
	if accepted.GetGeneration() != 1 {
		t.Fatalf("generation %d, want 1", accepted.GetGeneration())
	}
	seen := watchUntilComplete(t, c, "1.0.0", nil)
	assertStrictlyIncreasing(t, seen)
	final := seen[len(seen)-1]
	got, err := c.GetStatus(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !syncworker.IsComplete(got, "1.0.0") || got.GetRevision() < final.GetRevision() {
		t.Fatalf("GetStatus = revision %d %q, want complete at or after %d", got.GetRevision(), got.GetMessage(), final.GetRevision())
	}
	if queued, err := c.Notify(ctx, "test: configmap changed"); err != nil || !queued {
		t.Fatalf("Notify = %v, %v; want queued", queued, err)
	}
}

func TestWatchResumesAfterCut(t *testing.T) {
	addr := startServer(t)
	direct := dial(t, addr)
	p := startProxy(t, addr)
	c := dial(t, p.addr)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := c.UpdateTo(ctx, payload("1.0.0"), "1.0.0"); err != nil {
		t.Fatal(err)
	}
	watchUntilComplete(t, c, "1.0.0", nil)
	start, err := c.GetStatus(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.UpdateTo(ctx, payload("1.1.0"), "1.1.0"); err != nil {
		t.Fatal(err)
	}
	cuts := 0
	seen := watchUntilComplete(t, c, "1.1.0", func(s *pb.SyncWorkerStatus) {
		// Cut twice while the new release is being applied.
		if cuts < 2 && s.GetRevision() > start.GetRevision() && !syncworker.IsComplete(s, "1.1.0") {
			cuts++
			p.cut()
		}
	})
	if cuts == 0 {
		t.Fatal("the sync finished before the watch could be cut; slow the embedded operators down")
	}
	if p.connections() < 2 {
		t.Fatalf("%d connections through the proxy; the watch did not reconnect", p.connections())
	}
	assertStrictlyIncreasing(t, seen)
	final := seen[len(seen)-1]
	// With a long reconcile interval nothing is published after completion: the watch ended on the latest.
	latest, err := direct.GetStatus(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if latest.GetRevision() != final.GetRevision() {
		t.Fatalf("watch ended at revision %d, server is at %d", final.GetRevision(), latest.GetRevision())
	}
}

func TestErrorsCarryCodeAndDetails(t *testing.T) {
	c := dial(t, startServer(t))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	_, err := c.Update(ctx, &pb.UpdateRequest{Desired: &pb.DesiredUpdate{Image: ""}})
	var swErr *syncworker.Error
	if !errors.As(err, &swErr) || swErr.Code != codes.InvalidArgument {
		t.Fatalf("empty image: got %v, want *syncworker.Error InvalidArgument", err)
	}
	if v := swErr.FieldViolations(); len(v) != 1 || v[0].GetField() != "desired.image" {
		t.Fatalf("field violations %v, want desired.image", v)
	}
	if status.Code(err) != codes.InvalidArgument {
		t.Fatalf("status.Code(err) = %v; the wrapper hides the gRPC status", status.Code(err))
	}

	expired, cancelExpired := context.WithTimeout(ctx, time.Nanosecond)
	defer cancelExpired()
	<-expired.Done()
	if _, err := c.GetStatus(expired); !syncworker.IsCode(err, codes.DeadlineExceeded) {
		t.Fatalf("expired context: got %v, want DeadlineExceeded", err)
	}

	// A watch whose context ends reports it as its last pair, typed like any other error.
	watchCtx, stop := context.WithCancel(ctx)
	defer stop()
	for _, err := range c.Watch(watchCtx, syncworker.WatchOptions{}) {
		if err != nil {
			if !syncworker.IsCode(err, codes.Canceled) {
				t.Fatalf("cancelled watch: got %v, want Canceled", err)
			}
			break
		}
		stop()
	}
}
