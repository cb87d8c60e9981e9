package daemon

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/inferd/inferd/internal/backend/onnx"
	"github.com/inferd/inferd/internal/build"
	"github.com/inferd/inferd/internal/config"
	"github.com/inferd/inferd/internal/listen"
	"github.com/inferd/inferd/internal/metrics"
	"github.com/inferd/inferd/internal/telemetry/provider"
)

// Process is what the server and the worker both start from: the options with their
// defaults applied, the metrics, and the models discovered (not loaded yet).
type Process struct {
	Config     config.Config
	Log        *slog.Logger
	Prometheus *prometheus.Registry
	Metrics    *metrics.Metrics
	Models     *Models
	Tracing    *provider.Tracing
	Callbacks  Callbacks
}

// Start applies the defaults of opts, registers the metrics, starts tracing when the
// OTEL_* settings ask for it (service is the default service.name) and discovers the
// models of every source. A process that Start returned must stop its tracing.
func Start(ctx context.Context, opts Options, service string) (*Process, error) {
	p := &Process{Config: opts.Config, Log: opts.Logger, Prometheus: opts.Registry}
	hooks, err := newCallbacks(p.Config)
	if err != nil {
		return nil, err
	}
	p.Callbacks = hooks
	if p.Log == nil {
		p.Log = slog.Default()
	}
	if p.Prometheus == nil {
		p.Prometheus = prometheus.NewRegistry()
	}
	p.Metrics = metrics.New(p.Prometheus)
	metrics.BuildInfo(p.Prometheus, build.Version, build.Commit(), onnx.Version)
	if p.Config.ServiceName != "" {
		service = p.Config.ServiceName
	}
	tr, err := provider.New(ctx, provider.Options{Exporter: p.Config.Traces(), ServiceName: service, Provider: opts.TracerProvider, Logger: p.Log})
	if err != nil {
		return nil, err
	}
	p.Tracing = tr
	if tr.Tracer != nil {
		p.Log.Info("tracing", "exporter", p.Config.Traces(), "service", service)
	}
	ms, err := newRegistry(ctx, p.Config, p.Metrics, p.Log, opts.Sources, tr.Tracer)
	if err != nil {
		return nil, errors.Join(err, p.StopTracing())
	}
	p.Models = ms
	return p, nil
}

// StopTracing exports the spans still buffered: within 5 s, so that a collector that
// is down cannot hold a stopping process.
func (p *Process) StopTracing() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return p.Tracing.Shutdown(ctx)
}

// Serve listens on addr, or takes opts.Listener, and serves hs in the background
// through the connection caps (MAX_CONNECTIONS, MAX_CONNECTIONS_PER_ADDRESS) and then
// wrap (when not nil); the returned channel receives Serve's error. Once it listens it
// logs msg with the address, which tells the port ":0" got, and tells opts.Started.
func (p *Process) Serve(opts Options, hs *http.Server, addr string, wrap func(net.Listener) net.Listener, msg string, attrs ...any) (<-chan error, *listen.Listener, error) {
	ln := opts.Listener
	if ln == nil {
		var err error
		if ln, err = listen.TCP(addr); err != nil {
			return nil, nil, fmt.Errorf("listening: %w", err)
		}
	}
	// Innermost, so that a connection past a cap costs one accept and one close.
	capped := listen.New(ln, listen.Options{
		Max: p.Config.MaxConnections, MaxPerAddress: p.Config.MaxConnectionsPerAddress,
		Refused: p.Refused(),
	})
	reasons := make([]string, len(listen.Reasons))
	for i, r := range listen.Reasons {
		reasons[i] = string(r)
	}
	p.Metrics.ObserveConnections(capped.Open, reasons...)
	var served net.Listener = capped
	if wrap != nil {
		served = wrap(capped)
	}
	serveErr := make(chan error, 1)
	go func() { serveErr <- hs.Serve(served) }()
	p.Log.Info(msg, append([]any{"addr", ln.Addr().String(), "max_connections", capped.Max(),
		"max_connections_per_address", capped.MaxPerAddress()}, attrs...)...)
	if opts.Started != nil {
		opts.Started(ln.Addr().String())
	}
	return serveErr, capped, nil
}

// Refused counts each connection a cap closed, and says so in the log at most once a
// minute (count: the refusals since the last line): under a flood, a line per
// connection would be a flood of its own.
func (p *Process) Refused() func(listen.Reason) {
	var mu sync.Mutex
	var last time.Time
	var since int
	return func(r listen.Reason) {
		p.Metrics.ConnectionRefused(string(r))
		mu.Lock()
		defer mu.Unlock()
		since++
		if now := time.Now(); now.Sub(last) >= time.Minute {
			p.Log.Warn("connections refused: a connection cap is reached", "reason", string(r), "count", since)
			last, since = now, 0
		}
	}
}
