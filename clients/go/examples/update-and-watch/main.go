// Command update-and-watch updates a syncworker to a payload and watches until the sync completes; its last
// line is "completed N/N".
//
//	go run ./examples/update-and-watch --address 127.0.0.1:50051 --image /abs/payload --version 1.0.0
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"time"

	syncworker "github.com/syncworker/syncworker/clients/go"
)

func main() {
	address := flag.String("address", "127.0.0.1:50051", "syncworker gRPC address")
	image := flag.String("image", "", "payload directory")
	version := flag.String("version", "", "expected release version (empty: any)")
	timeout := flag.Duration("timeout", 5*time.Minute, "give up after this long")
	flag.Parse()
	if *image == "" {
		fmt.Fprintln(os.Stderr, "usage: update-and-watch --address HOST:PORT --image PAYLOAD_DIR [--version V] [--timeout D]")
		os.Exit(2)
	}
	if err := run(*address, *image, *version, *timeout); err != nil {
		fmt.Fprintln(os.Stderr, "update-and-watch:", err)
		os.Exit(1)
	}
}

func run(address, image, version string, timeout time.Duration) error {
	// One context bounds the whole run; Ctrl-C cancels it too.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	client, err := syncworker.Dial(address)
	if err != nil {
		return err
	}
	defer func() { _ = client.Close() }()
	// The server resolves the payload path itself, so send it absolute.
	abs, err := filepath.Abs(image)
	if err != nil {
		return err
	}
	accepted, err := client.UpdateTo(ctx, abs, version)
	if err != nil {
		return err
	}
	fmt.Printf("update accepted at revision %d\n", accepted.GetRevision())
	for status, err := range client.Watch(ctx, syncworker.WatchOptions{}) {
		if err != nil {
			return err
		}
		if syncworker.IsComplete(status, version) {
			fmt.Printf("completed %d/%d\n", status.GetDone(), status.GetTotal())
			return nil
		}
		fmt.Printf("revision %d: %s\n", status.GetRevision(), status.GetMessage())
	}
	return nil
}
