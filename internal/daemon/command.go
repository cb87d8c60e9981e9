package daemon

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/inferd/inferd/internal/config"
	"github.com/inferd/inferd/internal/logbuf"
)

// Command is one of the binaries: its name, what --help says it does, and its body.
type Command struct {
	Name  string
	About string
	Run   func(context.Context, Options) error
	// Addr is the address the command listens on, which --healthcheck probes.
	Addr func(config.Config) string
	// NeedsKeys: the command authenticates requests, so production refuses to start
	// it with the development keys (config.CheckKeys).
	NeedsKeys bool
}

// Main is the body of both binaries: the command line (only --help, --version and
// --healthcheck; settings come from the environment), settings, a logger, and run until SIGTERM or
// an interrupt. It returns the exit code: 2 for a bad command line or bad settings, 1
// when run failed, 0 after a clean shutdown or a --help or --version.
func Main(cmd Command, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet(cmd.Name, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are reported below, in one line
	showVersion := fs.Bool("version", false, "")
	probe := fs.Bool("healthcheck", false, "")
	switch err := fs.Parse(args); {
	case errors.Is(err, flag.ErrHelp):
		writeHelp(stdout, cmd)
		return 0
	case err != nil:
		fmt.Fprintf(stderr, "%s: %v (see %s --help)\n", cmd.Name, err, cmd.Name)
		return 2
	case fs.NArg() > 0:
		fmt.Fprintf(stderr, "%s: unexpected argument %q: settings are environment variables (see %s --help)\n", cmd.Name, fs.Arg(0), cmd.Name)
		return 2
	case *showVersion:
		fmt.Fprintln(stdout, versionLine(cmd.Name))
		return 0
	case *probe:
		return healthcheck(cmd, stdout, stderr)
	}

	cfg, err := config.FromEnv()
	if cmd.NeedsKeys {
		err = errors.Join(err, cfg.CheckKeys())
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s: invalid settings:\n%v\n", cmd.Name, err)
		return 2
	}
	// The runtime read GOGC at start; unset, it is inferd's default instead of Go's.
	debug.SetGCPercent(cfg.GCPercent)
	// A line per request written one by one would cost more CPU than serving many a
	// request; the lines go out in batches, warnings and errors at once, the rest at
	// exit (deferred: it runs after the last line below).
	out := logbuf.New(stderr, logbuf.Options{})
	defer out.Close()
	log := slog.New(logbuf.Urgent(NewLogger(out, cfg).Handler(), out, slog.LevelWarn))
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	// SIGHUP, which would otherwise end the process, re-reads API_KEYS_FILE.
	reload := make(chan os.Signal, 1)
	signal.Notify(reload, syscall.SIGHUP)
	defer signal.Stop(reload)
	if err := cmd.Run(ctx, Options{Config: cfg, Logger: log, Reload: reload}); err != nil {
		log.Error(cmd.Name+" stopped with an error", "error", err)
		return 1
	}
	return 0
}
