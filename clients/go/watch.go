package syncworker

import (
	"context"
	"errors"
	"io"
	"iter"
	"time"

	pb "github.com/syncworker/syncworker/clients/go/gen/syncworker/v1"
)

// WatchOptions tunes Watch. The zero value starts with the current snapshot and backs off from 100ms to 5s.
type WatchOptions struct {
	// SinceRevision resumes after this revision: snapshots at or below it are not yielded.
	SinceRevision uint64
	// InitialBackoff and MaxBackoff bound the wait before reconnecting; the wait doubles per failed attempt
	// and resets once a snapshot arrives.
	InitialBackoff, MaxBackoff time.Duration
}

// Watch yields every status snapshot after opts.SinceRevision until ctx ends or a non-transient error occurs,
// which it yields as the last pair (ctx ending yields ctx's error as an *Error with code Canceled or
// DeadlineExceeded). A dropped stream is reopened with since_revision set to the last revision yielded, so no
// snapshot is yielded twice; intermediate snapshots may be coalesced by the server, never the latest one.
//
//	for status, err := range client.Watch(ctx, syncworker.WatchOptions{}) { ... }
func (c *Client) Watch(ctx context.Context, opts WatchOptions) iter.Seq2[*pb.SyncWorkerStatus, error] {
	initial, maxWait := opts.InitialBackoff, opts.MaxBackoff
	if initial <= 0 {
		initial = 100 * time.Millisecond
	}
	if maxWait <= 0 {
		maxWait = 5 * time.Second
	}
	return func(yield func(*pb.SyncWorkerStatus, error) bool) {
		last, wait := opts.SinceRevision, initial
		for {
			err := c.watchOnce(ctx, last, func(s *pb.SyncWorkerStatus) bool {
				last, wait = s.GetRevision(), initial
				return yield(s, nil)
			})
			if err == errStop {
				return
			}
			if ctx.Err() != nil {
				yield(nil, wrap(ctx.Err()))
				return
			}
			// io.EOF is a clean end: the server is shutting down, so reconnect as after a drop.
			if err != nil && !errors.Is(err, io.EOF) && !transient(err) {
				yield(nil, err)
				return
			}
			select {
			case <-ctx.Done():
				yield(nil, wrap(ctx.Err()))
				return
			case <-time.After(wait):
			}
			wait = min(wait*2, maxWait)
		}
	}
}

var errStop = errors.New("consumer stopped")

// watchOnce runs one StatusWatch stream from since until it fails; errStop means the consumer broke off.
func (c *Client) watchOnce(ctx context.Context, since uint64, yield func(*pb.SyncWorkerStatus) bool) error {
	// A child context so breaking off the loop cancels the stream instead of leaking it.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := c.raw.StatusWatch(ctx, &pb.StatusWatchRequest{SinceRevision: since})
	if err != nil {
		return wrap(err)
	}
	for {
		res, err := stream.Recv()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return io.EOF
			}
			return wrap(err)
		}
		s := res.GetStatus()
		// The server already filters by since_revision; this guard keeps the promise even if it did not.
		if s == nil || s.GetRevision() <= since {
			continue
		}
		since = s.GetRevision()
		if !yield(s) {
			return errStop
		}
	}
}
