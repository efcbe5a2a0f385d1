// Command watch-fleet watches a rollout on the fleet's hub: one line per member view, and once the rollout is done
// a last line "rollout NAME PHASE: S/N succeeded"; it exits 0 when the rollout completed, 1 when it was halted or
// cancelled, 2 when there is no such rollout.
//
//	go run ./examples/watch-fleet --address 127.0.0.1:50052 --rollout ocp-4-16-3
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"time"

	"google.golang.org/grpc/codes"

	syncworker "github.com/syncworker/syncworker/clients/go"
	pb "github.com/syncworker/syncworker/clients/go/gen/syncworker/v1"
)

// final is the exit code of each phase a rollout ends in.
var final = map[string]int{"Completed": 0, "Halted": 1, "Cancelled": 1}

func main() {
	address := flag.String("address", "127.0.0.1:50052", "the fleet controller's FleetWatch address")
	rollout := flag.String("rollout", "", "the rollout's name")
	namespace := flag.String("namespace", "", "the rollout's namespace (empty: the controller's --namespace)")
	timeout := flag.Duration("timeout", 5*time.Minute, "give up after this long")
	flag.Parse()
	if *rollout == "" {
		fmt.Fprintln(os.Stderr, "usage: watch-fleet --address HOST:PORT --rollout NAME [--namespace NS] [--timeout D]")
		os.Exit(2)
	}
	code, err := run(*address, *rollout, *namespace, *timeout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "watch-fleet:", err)
		if syncworker.IsCode(err, codes.NotFound) {
			os.Exit(2)
		}
		os.Exit(1)
	}
	os.Exit(code)
}

func run(address, rollout, namespace string, timeout time.Duration) (int, error) {
	// One context bounds the whole run; Ctrl-C cancels it too.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	client, err := syncworker.Dial(address)
	if err != nil {
		return 0, err
	}
	defer func() { _ = client.Close() }()
	var view *pb.RolloutView
	// The picture is complete once Synced came: from then on, the rollout's latest view says whether it is done.
	synced := false
	for event, err := range client.WatchFleet(ctx, syncworker.FleetWatchOptions{Rollout: rollout, Namespace: namespace}) {
		if err != nil {
			return 0, err // NotFound, or ctx ended
		}
		if r := event.GetRollout(); r != nil {
			view = r
		}
		if event.GetSynced() != nil {
			synced = true
		}
		if m := event.GetMember(); m != nil {
			state := strings.ToLower(strings.TrimPrefix(m.GetState().String(), "MEMBER_STATE_"))
			fmt.Println(strings.TrimRight(fmt.Sprintf("%s %s %s %d/%d %s", m.GetMember(), m.GetStage(), state, m.GetDone(), m.GetTotal(), m.GetBlocker()), " "))
			continue
		}
		if code, done := final[view.GetPhase()]; synced && done {
			c := view.GetCounts()
			fmt.Printf("rollout %s %s: %d/%d succeeded\n", view.GetName(), view.GetPhase(), c.GetSucceeded(), c.GetTotal())
			return code, nil // breaking off cancels the stream
		}
	}
	return 1, nil
}
