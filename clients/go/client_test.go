package syncworker_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
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

// waitFor watches until a snapshot satisfies ok and returns it; what names the wait in a failure.
func waitFor(t *testing.T, c *syncworker.Client, what string, ok func(*pb.SyncWorkerStatus) bool) *pb.SyncWorkerStatus {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	for s, err := range c.Watch(ctx, syncworker.WatchOptions{}) {
		if err != nil {
			t.Fatalf("waiting for %s: %v", what, err)
		}
		if ok(s) {
			return s
		}
	}
	t.Fatalf("the watch ended before %s", what)
	return nil
}

func TestPauseResumeCancel(t *testing.T) {
	// Operators take 5s to report, so an update stays mid-apply long enough to be cancelled, even on a loaded machine.
	c := dial(t, startServer(t, "--operator-delay", "5s"))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if _, err := c.UpdateTo(ctx, payload("1.0.0"), "1.0.0"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, c, "1.0.0 completely applied", func(s *pb.SyncWorkerStatus) bool { return syncworker.IsComplete(s, "1.0.0") })

	paused, err := c.PauseUpdate(ctx, "change window")
	if err != nil {
		t.Fatal(err)
	}
	if p := paused.GetPause(); !p.GetPaused() || p.GetReason() != "change window" {
		t.Fatalf("PauseUpdate status shows pause %v, want paused with reason %q", p, "change window")
	}
	if _, err := c.PauseUpdate(ctx, "again"); !syncworker.IsCode(err, codes.FailedPrecondition) {
		t.Fatalf("pause while paused: got %v, want FailedPrecondition", err)
	}

	// Paused, an update is accepted and held before its first task; cancelling it keeps the release in effect.
	if _, err := c.UpdateTo(ctx, payload("1.1.0"), "1.1.0"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, c, "the update to 1.1.0 held by the pause", func(s *pb.SyncWorkerStatus) bool { return s.GetPause().GetUpdatePending() })
	if _, rolledBack, err := c.CancelUpdate(ctx, false); err != nil || rolledBack {
		t.Fatalf("cancel while paused: %v", err)
	}
	got, err := c.GetStatus(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got.GetActual().GetVersion() != "1.0.0" || got.GetLoadPayloadStatus().GetUpdate().GetVersion() != "1.0.0" || got.GetPause().GetUpdatePending() {
		t.Fatalf("after the cancel: actual %q, desired %q, update pending %v; want 1.0.0, 1.0.0, false",
			got.GetActual().GetVersion(), got.GetLoadPayloadStatus().GetUpdate().GetVersion(), got.GetPause().GetUpdatePending())
	}

	resumed, err := c.ResumeUpdate(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if resumed.GetPause().GetPaused() {
		t.Fatalf("ResumeUpdate status still shows pause %v", resumed.GetPause())
	}
	if _, err := c.ResumeUpdate(ctx); !syncworker.IsCode(err, codes.FailedPrecondition) {
		t.Fatalf("resume while running: got %v, want FailedPrecondition", err)
	}
	waitFor(t, c, "1.0.0 completely applied after resuming", func(s *pb.SyncWorkerStatus) bool { return syncworker.IsComplete(s, "1.0.0") })

	// Once applying started, a cancel without rollback is refused, naming what was applied.
	if _, err := c.UpdateTo(ctx, payload("1.1.0"), "1.1.0"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, c, "the update to 1.1.0 applying", func(s *pb.SyncWorkerStatus) bool {
		return s.GetActual().GetVersion() == "1.1.0" && s.GetDone() > 0
	})
	_, _, err = c.CancelUpdate(ctx, false)
	var swErr *syncworker.Error
	if !errors.As(err, &swErr) || swErr.Code != codes.FailedPrecondition || !strings.Contains(swErr.Message, "has started applying") {
		t.Fatalf("cancel once applying started: got %v, want FailedPrecondition saying it has started applying", err)
	}
	var reasons []string
	for _, d := range swErr.Details {
		if info, ok := d.(*errdetails.ErrorInfo); ok {
			reasons = append(reasons, info.GetReason())
		}
	}
	if len(reasons) != 1 || reasons[0] != "ApplyStarted" {
		t.Fatalf("ErrorInfo reasons %v, want [ApplyStarted]", reasons)
	}
	waitFor(t, c, "1.1.0 completely applied", func(s *pb.SyncWorkerStatus) bool { return syncworker.IsComplete(s, "1.1.0") })
}
