package syncworker

import (
	"context"
	"iter"
	"slices"
	"strings"
	"time"

	"google.golang.org/protobuf/proto"

	pb "github.com/syncworker/syncworker/clients/go/gen/syncworker/v1"
)

// FleetWatchOptions tunes WatchFleet. Rollout is required; the zero value of the rest starts from scratch in the
// server's namespace and backs off from 100ms to 5s.
type FleetWatchOptions struct {
	// Rollout is the rollout's name on the hub.
	Rollout string
	// Namespace is the rollout's namespace; empty: the server's --namespace.
	Namespace string
	// Cursors is, per member, the last revision seen (MemberView.revision): the server sends only the members that
	// changed since. WatchFleet keeps the map current, in place: after each member view it yields, the map holds
	// that view's revision for its member, so it is where a later WatchFleet resumes. Read it in the loop's body or
	// after the loop, not from another goroutine. Nil starts from scratch (WatchFleet keeps its own map then).
	Cursors map[string]uint64
	// FullStatus also carries each member's SyncWorkerStatus (MemberView.status).
	FullStatus bool
	// InitialBackoff and MaxBackoff bound the wait before reconnecting; the wait doubles per failed attempt and
	// resets once a message arrives.
	InitialBackoff, MaxBackoff time.Duration
}

// WatchFleet follows a rollout on the fleet's hub (service syncworker.v1.Fleet): on each connect the rollout's view,
// the views of the members the cursors do not cover, then a Synced event (yielded after every connect's burst),
// then one event per change, until ctx ends or a non-transient error occurs, which it yields as the last pair
// (codes.NotFound: no such rollout; ctx ending yields ctx's error as an *Error with code Canceled or
// DeadlineExceeded). It keeps a cursor per member (opts.Cursors) and reopens a dropped stream from them, so the
// server sends only what changed meanwhile. It never yields the same thing twice in a row: a member view equal to
// the last one yielded for that member (its status aside, which its revision stands for), or a rollout view equal
// to the last one yielded, is skipped; a view whose revision did not change but whose state did (the hub found the
// member unavailable) is yielded.
//
//	for event, err := range client.WatchFleet(ctx, syncworker.FleetWatchOptions{Rollout: "r1"}) { ... }
func (c *Client) WatchFleet(ctx context.Context, opts FleetWatchOptions) iter.Seq2[*pb.FleetWatchResponse, error] {
	return func(yield func(*pb.FleetWatchResponse, error) bool) {
		cursors := opts.Cursors
		if cursors == nil {
			cursors = map[string]uint64{}
		}
		var lastRollout *pb.RolloutView
		lastViews := map[string]*pb.MemberView{}
		fresh := func(res *pb.FleetWatchResponse) bool {
			switch event := res.GetEvent().(type) {
			case *pb.FleetWatchResponse_Rollout:
				if lastRollout != nil && proto.Equal(lastRollout, event.Rollout) {
					return false
				}
				lastRollout = event.Rollout
			case *pb.FleetWatchResponse_Member:
				view := withoutStatus(event.Member)
				if last, ok := lastViews[view.GetMember()]; ok && proto.Equal(last, view) {
					return false
				}
				lastViews[view.GetMember()] = view
				// Lower than the cursor too: the member's state was wiped, and its revisions start again.
				cursors[view.GetMember()] = view.GetRevision()
			case *pb.FleetWatchResponse_Synced:
			default:
				// An event of a newer contract this client does not know.
				return false
			}
			return true
		}
		err := reconnect(ctx, opts.InitialBackoff, opts.MaxBackoff, func(progress func()) error {
			req := &pb.FleetWatchRequest{Namespace: opts.Namespace, Rollout: opts.Rollout, FullStatus: opts.FullStatus}
			for member, revision := range cursors {
				req.Cursors = append(req.Cursors, &pb.MemberCursor{Member: member, Revision: revision})
			}
			slices.SortFunc(req.Cursors, func(a, b *pb.MemberCursor) int { return strings.Compare(a.GetMember(), b.GetMember()) })
			return c.fleetWatchOnce(ctx, req, func(res *pb.FleetWatchResponse) bool {
				progress()
				return !fresh(res) || yield(res, nil)
			})
		})
		if err != nil {
			yield(nil, err)
		}
	}
}

// withoutStatus is a copy of v without its status, for comparing views (its revision stands for the status); a
// copy, so a caller changing the view it was yielded changes nothing here.
func withoutStatus(v *pb.MemberView) *pb.MemberView {
	status := v.Status
	v.Status = nil
	copied := proto.Clone(v).(*pb.MemberView)
	v.Status = status
	return copied
}

// fleetWatchOnce runs one FleetWatch stream until it fails; errStop means the consumer broke off.
func (c *Client) fleetWatchOnce(ctx context.Context, req *pb.FleetWatchRequest, yield func(*pb.FleetWatchResponse) bool) error {
	// A child context so breaking off the loop cancels the stream instead of leaking it.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := c.fleet.FleetWatch(ctx, req)
	if err != nil {
		return wrap(err)
	}
	return drain(stream, yield)
}
