// Command inferd-worker runs asynchronous jobs from the Redis queue that inferd servers
// fill when QUEUE_URL is set. It reads the same settings and model repository as the
// server and serves /health, /ready and /metrics on WORKER_PORT.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/inferd/inferd/internal/app"
	"github.com/inferd/inferd/internal/config"
)

func main() { os.Exit(run()) }

func run() int {
	cfg, err := config.FromEnv()
	if err != nil {
		fmt.Fprintf(os.Stderr, "inferd-worker: invalid settings:\n%v\n", err)
		return 2
	}
	log := app.NewLogger(os.Stderr, cfg)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	if err := app.RunWorker(ctx, app.Options{Config: cfg, Logger: log}); err != nil {
		log.Error("inferd-worker stopped with an error", "error", err)
		return 1
	}
	return 0
}
