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
	return func(yield func(*pb.SyncWorkerStatus, error) bool) {
		last := opts.SinceRevision
		err := reconnect(ctx, opts.InitialBackoff, opts.MaxBackoff, func(progress func()) error {
			return c.watchOnce(ctx, last, func(s *pb.SyncWorkerStatus) bool {
				last = s.GetRevision()
				progress()
				return yield(s, nil)
			})
		})
		if err != nil {
			yield(nil, err)
		}
	}
}

// reconnect runs attempt (one stream) again and again, waiting between attempts from initial (default 100ms),
// doubling up to maxWait (default 5s); progress, called by attempt when a message arrives, resets the wait. It
// returns nil when attempt returns errStop (the consumer broke off), ctx's error as an *Error when ctx ends, and
// attempt's error when it is not transient. io.EOF, a clean end, means the server is shutting down: reconnect as
// after a drop.
func reconnect(ctx context.Context, initial, maxWait time.Duration, attempt func(progress func()) error) error {
	if initial <= 0 {
		initial = 100 * time.Millisecond
	}
	if maxWait <= 0 {
		maxWait = 5 * time.Second
	}
	wait := initial
	for {
		err := attempt(func() { wait = initial })
		if err == errStop {
			return nil
		}
		if ctx.Err() != nil {
			return wrap(ctx.Err())
		}
		if err != nil && !errors.Is(err, io.EOF) && !transient(err) {
			return err
		}
		select {
		case <-ctx.Done():
			return wrap(ctx.Err())
		case <-time.After(wait):
		}
		wait = min(wait*2, maxWait)
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
	return drain(stream, func(res *pb.StatusWatchResponse) bool {
		s := res.GetStatus()
		// The server already filters by since_revision; this guard keeps the promise even if it did not.
		if s == nil || s.GetRevision() <= since {
			return true
		}
		since = s.GetRevision()
		return yield(s)
	})
}

// drain hands each message of a server stream to yield until the stream ends (io.EOF), fails, or yield stops it
// (errStop).
func drain[T any](stream interface{ Recv() (T, error) }, yield func(T) bool) error {
	for {
		res, err := stream.Recv()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return io.EOF
			}
			return wrap(err)
		}
		if !yield(res) {
			return errStop
		}
	}
}
