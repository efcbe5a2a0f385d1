package syncworker_test

import (
	"context"
	"fmt"
	"maps"
	"net"
	"slices"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	syncworker "github.com/syncworker/syncworker/clients/go"
	pb "github.com/syncworker/syncworker/clients/go/gen/syncworker/v1"
)

// fleetServer is an in-process Fleet service (the hub's real one is tested with the fleet): per connection it sends
// the next scripted events, then holds the stream open; it records each request.
type fleetServer struct {
	pb.UnimplementedFleetServer
	script [][]*pb.FleetWatchResponse
	mu     sync.Mutex
	reqs   []*pb.FleetWatchRequest
	tokens []string
}

func (s *fleetServer) FleetWatch(req *pb.FleetWatchRequest, stream grpc.ServerStreamingServer[pb.FleetWatchResponse]) error {
	if req.GetRollout() != "r1" {
		return status.Errorf(codes.NotFound, "rollout default/%s not found", req.GetRollout())
	}
	md, _ := metadata.FromIncomingContext(stream.Context())
	s.mu.Lock()
	n := len(s.reqs)
	s.reqs = append(s.reqs, req)
	s.tokens = append(s.tokens, md.Get("authorization")...)
	s.mu.Unlock()
	events := []*pb.FleetWatchResponse{rolloutEvent()}
	if n < len(s.script) {
		events = s.script[n]
	}
	for _, e := range events {
		if err := stream.Send(e); err != nil {
			return err
		}
	}
	<-stream.Context().Done()
	return nil
}

func (s *fleetServer) requests() []*pb.FleetWatchRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.reqs)
}

func rolloutEvent() *pb.FleetWatchResponse {
	return &pb.FleetWatchResponse{Event: &pb.FleetWatchResponse_Rollout{Rollout: &pb.RolloutView{
		Name: "r1", ObservedGeneration: 1, Phase: "Progressing", CurrentStage: "canary", ReleaseVersion: "1.1.0",
		Counts: &pb.StateCounts{Total: 3, Pending: 2, Updating: 1},
	}}}
}

func memberEvent(name string, revision uint64, state pb.MemberState) *pb.FleetWatchResponse {
	return &pb.FleetWatchResponse{Event: &pb.FleetWatchResponse_Member{Member: &pb.MemberView{
		Member: name, Stage: "canary", State: state, Revision: revision, Generation: 1, Done: int32(revision), Total: 10, Version: "1.1.0",
		// The full status, as with full_status: it is not part of what the client compares.
		Status: &pb.SyncWorkerStatus{Revision: revision, Done: int32(revision), Total: 10},
	}}}
}

var syncedEvent = &pb.FleetWatchResponse{Event: &pb.FleetWatchResponse_Synced{Synced: &pb.Synced{}}}

func startFleetServer(t *testing.T, fs *fleetServer) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := grpc.NewServer()
	pb.RegisterFleetServer(s, fs)
	go func() { _ = s.Serve(ln) }()
	t.Cleanup(s.Stop)
	return ln.Addr().String()
}

func describe(e *pb.FleetWatchResponse) string {
	switch {
	case e.GetRollout() != nil:
		return "rollout " + e.GetRollout().GetPhase()
	case e.GetSynced() != nil:
		return "synced"
	default:
		m := e.GetMember()
		s := fmt.Sprintf("%s@%d", m.GetMember(), m.GetRevision())
		if m.GetState() == pb.MemberState_MEMBER_STATE_UNAVAILABLE {
			s += " unavailable"
		}
		return s
	}
}

// A burst, a cut through the proxy, a resume that sends the client's cursors, and what the client yields of the
// second burst: nothing twice, a wiped member (its revision went back), a change without a new revision.
func TestWatchFleetResumesFromItsCursors(t *testing.T) {
	updating, unavailable := pb.MemberState_MEMBER_STATE_UPDATING, pb.MemberState_MEMBER_STATE_UNAVAILABLE
	fs := &fleetServer{script: [][]*pb.FleetWatchResponse{
		// First connect with the caller's cursor for c, which has not changed, so is not sent.
		{rolloutEvent(), memberEvent("a", 3, updating), memberEvent("b", 5, updating), syncedEvent, memberEvent("a", 4, updating)},
		// The resume: b moved on, c was wiped; as a sloppy server might, the rollout and a again, unchanged; after
		// synced, a becomes unavailable without a new revision.
		{rolloutEvent(), memberEvent("a", 4, updating), memberEvent("b", 6, updating), memberEvent("c", 1, updating), syncedEvent, memberEvent("a", 4, unavailable)},
	}}
	p := startProxy(t, startFleetServer(t, fs))
	c := dialWith(t, p.addr, grpc.WithTransportCredentials(insecure.NewCredentials()), syncworker.WithToken("fleet-reader"))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	cursors := map[string]uint64{"c": 2}
	var seen []string
	for event, err := range c.WatchFleet(ctx, syncworker.FleetWatchOptions{Rollout: "r1", Cursors: cursors, InitialBackoff: 10 * time.Millisecond}) {
		if err != nil {
			t.Fatalf("watch ended after %v: %v", seen, err)
		}
		seen = append(seen, describe(event))
		if m := event.GetMember(); m != nil && cursors[m.GetMember()] != m.GetRevision() {
			t.Fatalf("cursor of %s is %d after its view at %d", m.GetMember(), cursors[m.GetMember()], m.GetRevision())
		}
		if len(seen) == 5 {
			p.cut()
		}
		if event.GetMember().GetState() == unavailable {
			break
		}
	}
	if want := []string{"rollout Progressing", "a@3", "b@5", "synced", "a@4", "b@6", "c@1", "synced", "a@4 unavailable"}; !slices.Equal(seen, want) {
		t.Fatalf("yielded %v, want %v", seen, want)
	}
	reqs := fs.requests()
	if len(reqs) != 2 {
		t.Fatalf("%d FleetWatch requests, want 2", len(reqs))
	}
	wantReqs := []*pb.FleetWatchRequest{
		{Rollout: "r1", Cursors: []*pb.MemberCursor{{Member: "c", Revision: 2}}},
		// The resume carries the cursor of every member seen, and the caller's for c.
		{Rollout: "r1", Cursors: []*pb.MemberCursor{{Member: "a", Revision: 4}, {Member: "b", Revision: 5}, {Member: "c", Revision: 2}}},
	}
	for i := range wantReqs {
		if !proto.Equal(reqs[i], wantReqs[i]) {
			t.Fatalf("request %d: %v, want %v", i, reqs[i], wantReqs[i])
		}
	}
	if want := map[string]uint64{"a": 4, "b": 6, "c": 1}; !maps.Equal(cursors, want) {
		t.Fatalf("cursors %v, want %v", cursors, want)
	}
	fs.mu.Lock()
	tokens := slices.Clone(fs.tokens)
	fs.mu.Unlock()
	if !slices.Equal(tokens, []string{"Bearer fleet-reader", "Bearer fleet-reader"}) {
		t.Fatalf("tokens %v", tokens)
	}
}

func TestWatchFleetNotFoundEndsTheWatch(t *testing.T) {
	c := dial(t, startFleetServer(t, &fleetServer{}))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var errs []error
	for event, err := range c.WatchFleet(ctx, syncworker.FleetWatchOptions{Rollout: "missing"}) {
		if event != nil {
			t.Fatalf("an event of a missing rollout: %v", event)
		}
		errs = append(errs, err)
	}
	if len(errs) != 1 || !syncworker.IsCode(errs[0], codes.NotFound) {
		t.Fatalf("errors %v, want one NotFound", errs)
	}
}
