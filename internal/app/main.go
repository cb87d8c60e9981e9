package app

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/inferd/inferd/internal/config"
)

// Main is the body of both commands: settings from the environment, a logger, and run
// until SIGTERM or an interrupt. It returns the exit code: 2 for bad settings, 1 when
// run failed, 0 after a clean shutdown.
func Main(name string, run func(context.Context, Options) error) int {
	cfg, err := config.FromEnv()
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: invalid settings:\n%v\n", name, err)
		return 2
	}
	log := NewLogger(os.Stderr, cfg)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	if err := run(ctx, Options{Config: cfg, Logger: log}); err != nil {
		log.Error(name+" stopped with an error", "error", err)
		return 1
	}
	return 0
}
