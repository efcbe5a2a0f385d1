// Package syncworker is a Go client for the syncworker gRPC service: context.Context on every call, errors as
// *Error with the gRPC code and details, a Watch that resumes across dropped streams, and WatchFleet, the fleet
// hub's resuming watch of a rollout.
package syncworker

import (
	"context"
	"fmt"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	pb "github.com/syncworker/syncworker/clients/go/gen/syncworker/v1"
)

// Client talks to one syncworker server. It is safe for concurrent use.
type Client struct {
	conn  *grpc.ClientConn
	raw   pb.SyncWorkerClient
	fleet pb.FleetClient
}

// Dial creates a client for target ("host:port"). Without options it uses plaintext, as the service listens on
// loopback or behind a mesh; pass grpc.WithTransportCredentials to change that. No connection is made until
// the first call.
func Dial(target string, opts ...grpc.DialOption) (*Client, error) {
	if len(opts) == 0 {
		opts = []grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials())}
	}
	conn, err := grpc.NewClient(target, opts...)
	if err != nil {
		return nil, fmt.Errorf("syncworker: dial %s: %w", target, err)
	}
	return &Client{conn: conn, raw: pb.NewSyncWorkerClient(conn), fleet: pb.NewFleetClient(conn)}, nil
}

// Close releases the connection.
func (c *Client) Close() error { return c.conn.Close() }

// Raw is the generated client, for options this wrapper does not cover.
func (c *Client) Raw() pb.SyncWorkerClient { return c.raw }

// Update sets the desired release and returns the worker's status right after it took the request.
func (c *Client) Update(ctx context.Context, req *pb.UpdateRequest) (*pb.SyncWorkerStatus, error) {
	res, err := c.raw.Update(ctx, req)
	if err != nil {
		return nil, wrap(err)
	}
	return res.GetStatus(), nil
}

// UpdateTo is Update for the common case: one release, no overrides or capabilities.
func (c *Client) UpdateTo(ctx context.Context, image, version string) (*pb.SyncWorkerStatus, error) {
	return c.Update(ctx, &pb.UpdateRequest{Desired: &pb.DesiredUpdate{Image: image, Version: version}})
}

// GetStatus returns the latest status snapshot.
func (c *Client) GetStatus(ctx context.Context) (*pb.SyncWorkerStatus, error) {
	res, err := c.raw.GetStatus(ctx, &pb.GetStatusRequest{})
	if err != nil {
		return nil, wrap(err)
	}
	return res.GetStatus(), nil
}

// PauseUpdate holds the update at a task boundary: running attempts finish, no new task starts, the position is
// kept (across restarts too). It returns the status showing the pause; codes.FailedPrecondition when already paused.
func (c *Client) PauseUpdate(ctx context.Context, reason string) (*pb.SyncWorkerStatus, error) {
	res, err := c.raw.PauseUpdate(ctx, &pb.PauseUpdateRequest{Reason: reason})
	if err != nil {
		return nil, wrap(err)
	}
	return res.GetStatus(), nil
}

// ResumeUpdate continues a paused update from where it stood and returns the status after it;
// codes.FailedPrecondition when not paused.
func (c *Client) ResumeUpdate(ctx context.Context) (*pb.SyncWorkerStatus, error) {
	res, err := c.raw.ResumeUpdate(ctx, &pb.ResumeUpdateRequest{})
	if err != nil {
		return nil, wrap(err)
	}
	return res.GetStatus(), nil
}

// CancelUpdate drops the desired release while none of it was applied; the release in effect stays. Once applying
// started it is codes.FailedPrecondition (ErrorInfo reason "ApplyStarted") naming what was applied, unless rollback:
// then an update back to the last completed release of the same minor version starts. It returns the status after
// it, and whether a rollback started (rather than the desired release being dropped).
func (c *Client) CancelUpdate(ctx context.Context, rollback bool) (*pb.SyncWorkerStatus, bool, error) {
	res, err := c.raw.CancelUpdate(ctx, &pb.CancelUpdateRequest{Rollback: rollback})
	if err != nil {
		return nil, false, wrap(err)
	}
	return res.GetStatus(), res.GetRollbackStarted(), nil
}

// Notify wakes the worker early. It reports false when a notification was already pending and this one
// coalesced into it.
func (c *Client) Notify(ctx context.Context, message string) (bool, error) {
	res, err := c.raw.NotifyResourceActivity(ctx, &pb.NotifyResourceActivityRequest{Message: message})
	if err != nil {
		return false, wrap(err)
	}
	return res.GetQueued(), nil
}

// IsComplete reports whether s shows version (or, if empty, any version) completely applied without failure.
func IsComplete(s *pb.SyncWorkerStatus, version string) bool {
	return s.GetCompleted() >= 1 &&
		s.GetFailure() == nil &&
		s.GetLoadPayloadStatus().GetFailure() == nil &&
		s.GetDone() == s.GetTotal() &&
		(version == "" || s.GetActual().GetVersion() == version)
}
