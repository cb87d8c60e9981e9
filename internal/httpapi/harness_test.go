package httpapi_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/inferd/inferd/internal/apitest"
	"github.com/inferd/inferd/internal/auth"
	"github.com/inferd/inferd/internal/backend/echo"
	"github.com/inferd/inferd/internal/httpapi"
	"github.com/inferd/inferd/internal/job"
	"github.com/inferd/inferd/internal/job/inproc"
	"github.com/inferd/inferd/internal/job/memstore"
	"github.com/inferd/inferd/internal/metrics"
	"github.com/inferd/inferd/internal/pipeline"
	"github.com/inferd/inferd/internal/problem"
	"github.com/inferd/inferd/internal/registry"
)

// Keys of every class the auth tests need.
const (
	keyPredict = "k-predict"
	// keyOther predicts too: a second client's key.
	keyOther   = "k-other"
	keyRead    = "k-read"
	keyAdmin   = "k-admin"
	keyUnknown = "k-unknown"
)

const testKeys = keyPredict + ":predict," + keyOther + ":predict," + keyRead + ":read_models," + keyAdmin + ":predict+read_models+admin"

type harness struct {
	c      *apitest.Client
	url    string
	reg    *registry.Registry
	runner *inproc.Runner
	prom   *prometheus.Registry
	srv    *httpapi.Server
	// waiters holds the long polls of GET /jobs/{job_id}?wait=.
	waiters *job.Waiters
}

type setup struct {
	opts    httpapi.Options
	sources []registry.Source
	workers int
	queue   int
	noLoad  bool // leave loading to the test
	// listener, when set, wraps the server's listener (to count what it reads, say).
	listener func(net.Listener) net.Listener
	// writeTimeout is the server's WriteTimeout (0: none, as httptest serves).
	writeTimeout time.Duration
	// connState, when set, hears each change of a connection's state after the
	// server's own ConnState.
	connState func(net.Conn, http.ConnState)
	// inMemory serves over net.Pipe connections instead of a socket, for a test in a
	// synctest bubble (see apitest.NewInMemory); the harness's url is then empty.
	inMemory bool
	// store configures the job store (its clock, its caps); TTL is an hour unless set.
	store memstore.Options
}

// newHarness serves the whole API (validator, auth, limits, handlers) over a real
// socket, or in memory, with the echo model, test models and in-process jobs.
func newHarness(t *testing.T, mods ...func(*setup)) *harness {
	t.Helper()
	keys, err := auth.Parse("test", testKeys)
	if err != nil {
		t.Fatal(err)
	}
	s := setup{workers: 2, queue: 64, opts: httpapi.Options{Keys: auth.NewKeys(keys), MaxRequestBytes: 64 << 10, MaxBatchItems: 1024}}
	for _, m := range mods {
		m(&s)
	}
	log := s.opts.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	prom := prometheus.NewRegistry()
	m := metrics.New(prom)
	reg := registry.New(registry.Options{
		Sources:  append([]registry.Source{echoSource()}, s.sources...),
		Logger:   log,
		Observer: m,
	})
	if err := reg.Discover(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !s.noLoad {
		reg.Load(context.Background())
	}
	waiters := &job.Waiters{}
	so := s.store
	if so.TTL == 0 {
		so.TTL = time.Hour
	}
	so.OnFinal = waiters.Finish
	store := memstore.New(so)
	exec := &job.Executor{Store: store, Predictor: predictor{reg}, Observer: m, MaxResultBytes: s.opts.MaxResponseBytes, Code: problem.JobCode}
	runner := inproc.New(exec, inproc.Options{Workers: s.workers, QueueSize: s.queue, Logger: log, Claim: reg.Claim})
	m.ObserveQueue(runner.Depth, runner.Running)
	m.ObserveWorkers(func() int { return 1 })
	m.ObserveWaits(waiters.Len)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = runner.Shutdown(ctx)
		_ = reg.Close()
	})
	o := s.opts
	o.Registry, o.Jobs, o.Metrics, o.Gatherer, o.Logger = reg, &job.Service{Store: store, Submitter: job.Steps{Store: store, Runner: runner}, Waiters: waiters}, m, prom, log
	srv, err := httpapi.NewServer(o)
	if err != nil {
		t.Fatal(err)
	}
	h, err := srv.Handler()
	if err != nil {
		t.Fatal(err)
	}
	if s.inMemory {
		return &harness{c: apitest.NewInMemory(t, h), reg: reg, runner: runner, prom: prom}
	}
	ts := httptest.NewUnstartedServer(h)
	ts.Config.ConnState = srv.ConnState // as internal/app serves it
	if s.connState != nil {
		ts.Config.ConnState = func(c net.Conn, st http.ConnState) {
			srv.ConnState(c, st)
			s.connState(c, st)
		}
	}
	ts.Config.WriteTimeout = s.writeTimeout
	if s.listener != nil {
		ts.Listener = s.listener(ts.Listener)
	}
	ts.Start()
	t.Cleanup(ts.Close)
	return &harness{c: apitest.New(t, ts.URL), url: ts.URL, reg: reg, runner: runner, prom: prom, srv: srv, waiters: waiters}
}

type predictor struct{ reg *registry.Registry }

func (p predictor) Predict(ctx context.Context, model, version string, items []json.RawMessage) ([]json.RawMessage, error) {
	pred, err := p.reg.Predict(ctx, registry.Request{Model: model, Version: version, Items: items, Mode: registry.ModeAsync})
	return pred.Results, err
}

func (p predictor) PredictEach(ctx context.Context, model, version string, items []json.RawMessage) ([]json.RawMessage, []*pipeline.InputError, error) {
	pred, err := p.reg.Predict(ctx, registry.Request{Model: model, Version: version, Items: items, Mode: registry.ModeAsync, EachItem: true})
	return pred.Results, pred.Failed, err
}

func echoSource() registry.Source {
	spec := registry.ModelSpec{Name: "echo"}
	for _, v := range echo.Versions {
		spec.Versions = append(spec.Versions, registry.VersionSpec{Version: v, Loader: fixed(echo.New(v))})
	}
	return registry.Fixed{spec}
}

func fixed(p *pipeline.Pipeline) registry.Loader {
	return registry.LoaderFunc(func(context.Context) (*pipeline.Pipeline, error) { return p, nil })
}

// funcModel is a test model made of a function.
type funcModel func(ctx context.Context, batch []any) ([]any, error)

func (f funcModel) Predict(ctx context.Context, batch []any) ([]any, error) { return f(ctx, batch) }
func (f funcModel) Close() error                                            { return nil }

// testModel is a one-version model "name" v1 running f.
func testModel(name string, f funcModel) registry.Source {
	return registry.Fixed{{Name: name, Versions: []registry.VersionSpec{{Version: "v1", Loader: fixed(&pipeline.Pipeline{Model: f})}}}}
}

var errBoom = errors.New("boom: the model's runtime failed")

// failing always fails, as a broken runtime would.
func failing(context.Context, []any) ([]any, error) { return nil, errBoom }

// blocking waits for release (or the request's end) and then echoes.
func blocking(release <-chan struct{}) funcModel {
	return func(ctx context.Context, batch []any) ([]any, error) {
		select {
		case <-release:
			return batch, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}
