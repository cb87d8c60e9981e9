package daemon

import (
	"log/slog"
	"net"
	"os"

	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel/trace"

	"github.com/inferd/inferd/internal/config"
	"github.com/inferd/inferd/internal/registry"
)

// Options are what a process starts with besides the Config: the server's app.Run and
// the worker's worker.Run take them. Zero values are documented defaults.
type Options struct {
	Config config.Config
	// Logger defaults to slog.Default().
	Logger *slog.Logger
	// Registry receives the metrics; nil means a new prometheus.Registry.
	Registry *prometheus.Registry
	// Sources are model sources added after the built-in echo model (tests add theirs).
	Sources []registry.Source
	// Listener, when set, is served instead of listening on Config.ListenAddr.
	Listener net.Listener
	// Started, when set, receives the server's address once it listens.
	Started func(addr string)
	// GRPCListener, when set, is served the gRPC protocol instead of listening on
	// Config.GRPCListenAddr (even when that is off); GRPCStarted, when set, receives its
	// address.
	GRPCListener net.Listener
	GRPCStarted  func(addr string)
	// TracerProvider, when set, traces with it whatever the OTEL_* settings say (tests
	// pass one around an in-memory exporter); its owner shuts it down.
	TracerProvider trace.TracerProvider
	// Reload receives SIGHUP: the server re-reads API_KEYS_FILE at once, the worker,
	// which holds no keys, logs that it has nothing to re-read. nil: no signal comes.
	Reload <-chan os.Signal
}
