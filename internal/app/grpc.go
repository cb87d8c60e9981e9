package app

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/contrib/instrumentation/google.golang.org/grpc/otelgrpc"
	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/reflection"
	"google.golang.org/grpc/stats"

	pb "github.com/inferd/inferd/gen/inference"
	"github.com/inferd/inferd/internal/daemon"
	"github.com/inferd/inferd/internal/grpcapi"
	"github.com/inferd/inferd/internal/httpapi"
	"github.com/inferd/inferd/internal/listen"
	"github.com/inferd/inferd/internal/telemetry"
)

// healthEvery is how often the gRPC health service's status follows readiness.
const healthEvery = 500 * time.Millisecond

// A connection is closed after grpcMaxConnectionAge (gRPC adds ±10% jitter); its
// calls in flight then have grpcMaxConnectionAgeGrace to finish.
const (
	grpcMaxConnectionAge      = 2 * time.Minute
	grpcMaxConnectionAgeGrace = 5 * time.Minute
)

// grpcMaxHeaderBytes caps a call's metadata, as http.Server's MaxHeaderBytes caps a
// request's headers; grpcMaxStreams caps the calls in progress on one connection.
const (
	grpcMaxHeaderBytes = 64 << 10
	grpcMaxStreams     = 256
)

// grpcStreamWorkers are goroutines that serve calls one after another, rather than a
// goroutine started for each call: a new one grows its stack for the call's deep
// path (interceptor, handler, registry, batcher), and at 64 connections of digits
// that growth (runtime.newstack) took 2.6% of inferd's CPU. A ModelInfer call holds
// its worker while it waits for the batcher, so there are as many as calls in flight
// at 64 connections; past them grpc-go starts a goroutine per call, as without.
const grpcStreamWorkers = 64

// grpcListener is the Open Inference Protocol over gRPC, with the standard health
// service (for Kubernetes' gRPC probes) and server reflection (for grpcurl).
type grpcListener struct {
	srv     *grpc.Server
	health  *health.Server
	stopped atomic.Bool // set by drain: Check answers NOT_SERVING from then on
	stop    context.CancelFunc
	done    chan struct{}
	errs    chan error
}

// serveGRPC starts the gRPC listener on GRPC_LISTEN_ADDR (or opts.GRPCListener); nil
// when it is off. Its calls share rest's admission (keys and limits), wording and
// protocol service.
func serveGRPC(p *daemon.Process, opts Options, rest *httpapi.Server) (*grpcListener, error) {
	cfg := p.Config
	ln := opts.GRPCListener
	if ln == nil && cfg.GRPCListenAddr == "" {
		return nil, nil
	}
	svc, err := grpcapi.New(grpcapi.Options{Admission: rest.Admission(), Wording: rest.Wording(), OIP: rest.OIP(),
		Registry: p.Models.Registry, Metrics: p.Metrics, Logger: p.Log,
		MaxBatchItems: cfg.MaxBatchItems, MaxResponseBytes: cfg.MaxResponseBytes})
	if err != nil {
		return nil, err
	}
	if ln == nil {
		if ln, err = listen.TCP(cfg.GRPCListenAddr); err != nil {
			return nil, fmt.Errorf("listening for gRPC: %w", err)
		}
	}
	maxRequest := cfg.MaxRequestBytes
	if maxRequest <= 0 {
		maxRequest = httpapi.DefaultMaxRequestBytes
	}
	serverOpts := append([]grpc.ServerOption{
		// MAX_REQUEST_BYTES is the receive limit: a larger message is RESOURCE_EXHAUSTED
		// before it is decoded, as a larger REST body is 413 before it is read.
		grpc.MaxRecvMsgSize(int(maxRequest)),
		grpc.ChainUnaryInterceptor(svc.Unary),
		// As for HTTP's headers (MaxHeaderBytes): grpc-go would take 16 MB of metadata.
		grpc.MaxHeaderListSize(grpcMaxHeaderBytes),
		// Calls at once on one connection; a client past it waits for a call to end
		// (grpc-go would allow some four billion, each a goroutine).
		grpc.MaxConcurrentStreams(grpcMaxStreams),
		grpc.NumStreamWorkers(grpcStreamWorkers),
		// A gRPC client sends every call over one connection, which a Service balances
		// once: closing connections after a while (GOAWAY, calls in flight finish) lets
		// clients spread over replicas an autoscaler added.
		grpc.KeepaliveParams(keepalive.ServerParameters{MaxConnectionAge: grpcMaxConnectionAge, MaxConnectionAgeGrace: grpcMaxConnectionAgeGrace}),
		// Clients that ping to keep idle connections open through proxies are let be,
		// rather than sent away for pinging more often than every 5 minutes.
		grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{MinTime: 10 * time.Second, PermitWithoutStream: true}),
	}, grpcapi.ServerOptions()...) // the codec, write buffer and windows its traffic wants
	if p.Tracing.Tracer != nil {
		// Joins the caller's trace from its traceparent metadata, as REST's spans do.
		serverOpts = append(serverOpts, grpc.StatsHandler(otelgrpc.NewServerHandler(
			otelgrpc.WithTracerProvider(p.Tracing.Provider), otelgrpc.WithPropagators(telemetry.Propagator),
			otelgrpc.WithFilter(func(info *stats.RPCTagInfo) bool { return !isProbe(info.FullMethodName) }))))
	}
	capped := listen.New(ln, listen.Options{Max: cfg.MaxConnections, MaxPerAddress: cfg.MaxConnectionsPerAddress, Refused: p.Refused()})
	p.Metrics.ObserveGRPCConnections(capped.Open)
	g := &grpcListener{srv: grpc.NewServer(serverOpts...), health: health.NewServer(), done: make(chan struct{}), errs: make(chan error, 1)}
	pb.RegisterGRPCInferenceServiceServer(g.srv, svc)
	healthpb.RegisterHealthServer(g.srv, liveHealth{Server: g.health, ready: svc.Ready, stopped: &g.stopped})
	reflection.Register(g.srv)
	g.health.SetServingStatus("", healthpb.HealthCheckResponse_NOT_SERVING)
	g.health.SetServingStatus(pb.GRPCInferenceService_ServiceDesc.ServiceName, healthpb.HealthCheckResponse_NOT_SERVING)

	ctx, stop := context.WithCancel(context.Background())
	g.stop = stop
	go g.followReadiness(ctx, svc)
	go func() { g.errs <- g.srv.Serve(capped) }()
	p.Log.Info("serving gRPC", "grpc_addr", ln.Addr().String(), "max_request_bytes", maxRequest)
	if opts.GRPCStarted != nil {
		opts.GRPCStarted(ln.Addr().String())
	}
	return g, nil
}

// liveHealth answers Check from readiness as it is now, for the whole server ("") and
// the inference service, rather than as followReadiness last set it (up to healthEvery
// ago): a probe right after /ready turned 200 agrees with it. Watch and other
// services are the standard server's.
type liveHealth struct {
	*health.Server
	ready   func(context.Context) (bool, error)
	stopped *atomic.Bool
}

func (h liveHealth) Check(ctx context.Context, req *healthpb.HealthCheckRequest) (*healthpb.HealthCheckResponse, error) {
	if req.Service != "" && req.Service != pb.GRPCInferenceService_ServiceDesc.ServiceName {
		return h.Server.Check(ctx, req)
	}
	st := healthpb.HealthCheckResponse_NOT_SERVING
	if ready, err := h.ready(ctx); err == nil && ready && !h.stopped.Load() {
		st = healthpb.HealthCheckResponse_SERVING
	}
	return &healthpb.HealthCheckResponse{Status: st}, nil
}

func isProbe(method string) bool {
	return method == "/grpc.health.v1.Health/Check" || method == "/grpc.health.v1.Health/Watch"
}

// followReadiness sets the health service's status from the server's readiness:
// SERVING while GET /ready would answer 200, for the whole server ("") and the
// inference service by name.
func (g *grpcListener) followReadiness(ctx context.Context, svc *grpcapi.Server) {
	defer close(g.done)
	t := time.NewTicker(healthEvery)
	defer t.Stop()
	for {
		st := healthpb.HealthCheckResponse_NOT_SERVING
		if ready, err := svc.Ready(ctx); err == nil && ready {
			st = healthpb.HealthCheckResponse_SERVING
		}
		g.health.SetServingStatus("", st)
		g.health.SetServingStatus(pb.GRPCInferenceService_ServiceDesc.ServiceName, st)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// drain reports NOT_SERVING from now on, so that gRPC probes and load balancers stop
// sending while the calls in flight finish.
func (g *grpcListener) drain() {
	if g == nil {
		return
	}
	g.stopped.Store(true)
	g.stop()
	<-g.done
	g.health.Shutdown()
}

// shutdown stops accepting calls and waits for those in flight, until ctx ends; then
// it closes every connection.
func (g *grpcListener) shutdown(ctx context.Context) error {
	if g == nil {
		return nil
	}
	g.drain()
	stopped := make(chan struct{})
	go func() { g.srv.GracefulStop(); close(stopped) }()
	select {
	case <-stopped:
		return nil
	case <-ctx.Done():
		g.srv.Stop()
		<-stopped
		return fmt.Errorf("gRPC calls still in flight at the shutdown timeout: %w", ctx.Err())
	}
}

// serveErr is where a listener that died reports; nil when gRPC is off.
func (g *grpcListener) serveErr() <-chan error {
	if g == nil {
		return nil
	}
	return g.errs
}
