// The watcher side of `npm run bench -- watch` in Go (BENCH_WATCHER=go): the same protocol as
// watch-clients.ts, with a client that decodes faster than grpc-js, so the delays measured are the
// server's. Opens N StatusWatch streams (100 per connection), records for every snapshot after the
// first the delay between its publication (published_at) and its arrival, prints "connected" once
// every stream has its first snapshot and one JSON summary when a line arrives on stdin.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	pb "github.com/syncworker/syncworker/clients/go/gen/syncworker/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

const streamsPerConnection = 100

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: go-watchers ADDRESS STREAMS")
		os.Exit(2)
	}
	address := os.Args[1]
	count, err := strconv.Atoi(os.Args[2])
	if err != nil || count <= 0 {
		fmt.Fprintf(os.Stderr, "STREAMS must be a positive number, got %q\n", os.Args[2])
		os.Exit(2)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var (
		mu        sync.Mutex
		delays    []int64
		connected atomic.Int64
		done      sync.WaitGroup
	)
	var conn *grpc.ClientConn
	for i := range count {
		if i%streamsPerConnection == 0 {
			if conn, err = grpc.NewClient(address, grpc.WithTransportCredentials(insecure.NewCredentials())); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
		}
		stream, err := pb.NewSyncWorkerClient(conn).StatusWatch(ctx, &pb.StatusWatchRequest{})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		done.Add(1)
		go func() {
			defer done.Done()
			first := true
			for {
				response, err := stream.Recv()
				if err != nil {
					return
				}
				arrived := time.Now()
				if first {
					// The initial snapshot was published before the watcher existed.
					first = false
					if connected.Add(1) == int64(count) {
						fmt.Println("connected")
					}
					continue
				}
				if published := response.GetStatus().GetPublishedAt(); published != nil {
					mu.Lock()
					delays = append(delays, arrived.Sub(published.AsTime()).Milliseconds())
					mu.Unlock()
				}
			}
		}()
	}
	bufio.NewScanner(os.Stdin).Scan()
	cancel()
	done.Wait()
	slices.Sort(delays)
	at := func(q float64) int64 {
		if len(delays) == 0 {
			return -1
		}
		return delays[min(len(delays)-1, int(q*float64(len(delays))))]
	}
	summary, _ := json.Marshal(map[string]int64{"deliveries": int64(len(delays)), "p50": at(0.5), "p99": at(0.99), "max": at(1)})
	fmt.Println(string(summary))
}
