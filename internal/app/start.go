package app

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

// process is what Run and RunWorker both start from: the options with their defaults
// applied, the metrics, and the models discovered (not loaded yet).
type process struct {
	cfg     config.Config
	log     *slog.Logger
	promReg *prometheus.Registry
	metrics *metrics.Metrics
	models  *models
	tracing *provider.Tracing
	hooks   callbacks
}

// start applies the defaults of opts, registers the metrics, starts tracing when the
// OTEL_* settings ask for it (service is the default service.name) and discovers the
// models of every source. A process that start returned must stop its tracing.
func start(ctx context.Context, opts Options, service string) (*process, error) {
	p := &process{cfg: opts.Config, log: opts.Logger, promReg: opts.Registry}
	hooks, err := newCallbacks(p.cfg)
	if err != nil {
		return nil, err
	}
	p.hooks = hooks
	if p.log == nil {
		p.log = slog.Default()
	}
	if p.promReg == nil {
		p.promReg = prometheus.NewRegistry()
	}
	p.metrics = metrics.New(p.promReg)
	metrics.BuildInfo(p.promReg, build.Version, build.Commit(), onnx.Version)
	if p.cfg.ServiceName != "" {
		service = p.cfg.ServiceName
	}
	tr, err := provider.New(ctx, provider.Options{Exporter: p.cfg.Traces(), ServiceName: service, Provider: opts.TracerProvider, Logger: p.log})
	if err != nil {
		return nil, err
	}
	p.tracing = tr
	if tr.Tracer != nil {
		p.log.Info("tracing", "exporter", p.cfg.Traces(), "service", service)
	}
	ms, err := newRegistry(ctx, p.cfg, p.metrics, p.log, opts.Sources, tr.Tracer)
	if err != nil {
		return nil, errors.Join(err, p.stopTracing())
	}
	p.models = ms
	return p, nil
}

// stopTracing exports the spans still buffered: within 5 s, so that a collector that
// is down cannot hold a stopping process.
func (p *process) stopTracing() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return p.tracing.Shutdown(ctx)
}

// serve listens on addr, or takes opts.Listener, and serves hs in the background
// through the connection caps (MAX_CONNECTIONS, MAX_CONNECTIONS_PER_ADDRESS) and then
// wrap (when not nil); the returned channel receives Serve's error. Once it listens it
// logs msg with the address, which tells the port ":0" got, and tells opts.Started.
func (p *process) serve(opts Options, hs *http.Server, addr string, wrap func(net.Listener) net.Listener, msg string, attrs ...any) (<-chan error, *listen.Listener, error) {
	ln := opts.Listener
	if ln == nil {
		var err error
		if ln, err = listen.TCP(addr); err != nil {
			return nil, nil, fmt.Errorf("listening: %w", err)
		}
	}
	// Innermost, so that a connection past a cap costs one accept and one close.
	capped := listen.New(ln, listen.Options{
		Max: p.cfg.MaxConnections, MaxPerAddress: p.cfg.MaxConnectionsPerAddress,
		Refused: p.refused(),
	})
	reasons := make([]string, len(listen.Reasons))
	for i, r := range listen.Reasons {
		reasons[i] = string(r)
	}
	p.metrics.ObserveConnections(capped.Open, reasons...)
	var served net.Listener = capped
	if wrap != nil {
		served = wrap(capped)
	}
	serveErr := make(chan error, 1)
	go func() { serveErr <- hs.Serve(served) }()
	p.log.Info(msg, append([]any{"addr", ln.Addr().String(), "max_connections", capped.Max(),
		"max_connections_per_address", capped.MaxPerAddress()}, attrs...)...)
	if opts.Started != nil {
		opts.Started(ln.Addr().String())
	}
	return serveErr, capped, nil
}

// refused counts each connection a cap closed, and says so in the log at most once a
// minute (count: the refusals since the last line): under a flood, a line per
// connection would be a flood of its own.
func (p *process) refused() func(listen.Reason) {
	var mu sync.Mutex
	var last time.Time
	var since int
	return func(r listen.Reason) {
		p.metrics.ConnectionRefused(string(r))
		mu.Lock()
		defer mu.Unlock()
		since++
		if now := time.Now(); now.Sub(last) >= time.Minute {
			p.log.Warn("connections refused: a connection cap is reached", "reason", string(r), "count", since)
			last, since = now, 0
		}
	}
}
