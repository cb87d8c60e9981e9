// Command inferd is the API server: it serves the models of MODELS_DIR and the built-in
// echo model over HTTP. Settings come from the environment; see README.md.
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
		fmt.Fprintf(os.Stderr, "inferd: invalid settings:\n%v\n", err)
		return 2
	}
	log := app.NewLogger(os.Stderr, cfg)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	if err := app.Run(ctx, app.Options{Config: cfg, Logger: log}); err != nil {
		log.Error("inferd stopped with an error", "error", err)
		return 1
	}
	return 0
}
