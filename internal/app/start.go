package app

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/inferd/inferd/internal/backend/onnx"
	"github.com/inferd/inferd/internal/build"
	"github.com/inferd/inferd/internal/config"
	"github.com/inferd/inferd/internal/metrics"
)

// process is what Run and RunWorker both start from: the options with their defaults
// applied, the metrics, and the models discovered (not loaded yet).
type process struct {
	cfg     config.Config
	log     *slog.Logger
	promReg *prometheus.Registry
	metrics *metrics.Metrics
	models  *models
}

// start applies the defaults of opts, registers the metrics and discovers the models
// of every source.
func start(ctx context.Context, opts Options) (*process, error) {
	p := &process{cfg: opts.Config, log: opts.Logger, promReg: opts.Registry}
	if p.log == nil {
		p.log = slog.Default()
	}
	if p.promReg == nil {
		p.promReg = prometheus.NewRegistry()
	}
	p.metrics = metrics.New(p.promReg)
	metrics.BuildInfo(p.promReg, build.Version, build.Commit(), onnx.Version)
	ms, err := newRegistry(ctx, p.cfg, p.metrics, p.log, opts.Sources)
	if err != nil {
		return nil, err
	}
	p.models = ms
	return p, nil
}

// serve listens on addr, or takes opts.Listener, and serves hs in the background
// through wrap (when not nil); the returned channel receives Serve's error. Once it
// listens it logs msg with the address, which tells the port ":0" got, and tells
// opts.Started.
func (p *process) serve(opts Options, hs *http.Server, addr string, wrap func(net.Listener) net.Listener, msg string, attrs ...any) (<-chan error, error) {
	ln := opts.Listener
	if ln == nil {
		var err error
		if ln, err = net.Listen("tcp", addr); err != nil {
			return nil, fmt.Errorf("listening: %w", err)
		}
	}
	served := ln
	if wrap != nil {
		served = wrap(ln)
	}
	serveErr := make(chan error, 1)
	go func() { serveErr <- hs.Serve(served) }()
	p.log.Info(msg, append([]any{"addr", ln.Addr().String()}, attrs...)...)
	if opts.Started != nil {
		opts.Started(ln.Addr().String())
	}
	return serveErr, nil
}
