package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The cases, by the names the report prints.
const (
	CaseEcho      = "echo /predict"
	CaseIris      = "iris v1 /predict"
	CaseDigitsOn  = "digits /predict, batching on"
	CaseDigitsOff = "digits /predict, batching off"
	CaseBatch     = "iris v1 /predict/batch of 64"
	CaseAsync     = "echo async, in-process (jobs)"
	CaseQueue     = "echo async, queue, 2 workers (jobs)"
	CaseOIPJSON   = "echo /v2 infer, 1 MB FP32 as JSON"
	CaseOIPBinary = "echo /v2 infer, 1 MB FP32 as binary"
	// The Open Inference Protocol over gRPC, beside the same calls over REST.
	CaseDigitsV2JSON   = "digits /v2 infer, REST JSON"
	CaseDigitsV2Binary = "digits /v2 infer, REST binary"
	CaseDigitsGRPCRaw  = "digits ModelInfer, gRPC raw"
	CaseDigitsGRPC     = "digits ModelInfer, gRPC typed"
	CaseOIPGRPCRaw     = "echo ModelInfer, 1 MB FP32, gRPC raw"
	CaseOIPGRPC        = "echo ModelInfer, 1 MB FP32, gRPC typed"
	// Tensors at memory speed: the Open Inference Protocol beside /predict for one
	// flower, and the floor under the 1 MB tensor's cost, served by the baseline's
	// process.
	CaseIrisV2JSON = "iris v1 /v2 infer, JSON"
	CaseFloor      = "floor: net/http 1 MB body read and written back"
)

// grpcCases are the cases that call inferd's gRPC listener: a run with any of them
// starts its inferd with one.
var grpcCases = []string{CaseDigitsGRPCRaw, CaseDigitsGRPC, CaseOIPGRPCRaw, CaseOIPGRPC}

// Config is one run's shape.
type Config struct {
	Root      string // working directory of the children: where .onnxruntime/ is found
	BinDir    string // inferd and inferd-worker, as make build writes them
	ModelsDir string
	EchoBin   string // the executable that serves the baseline when echoAddrEnv is set
	Conns     []int
	Duration  time.Duration // measured, per case and connection count
	// Rounds is how many times every case is measured at every connection count; the
	// report keeps the round of median throughput. 0 means 1.
	Rounds     int
	Warmup     time.Duration // driven and discarded before each measurement
	MemFirst   int           // echo requests before the first RSS reading after traffic
	MemTotal   int           // echo requests before the last
	PickupJobs int           // jobs of the idle-pickup measurement
	// OIPTensorBytes is the size of the /v2 infer cases' FP32 tensor; 0 means 1 MiB.
	OIPTensorBytes int
	// Cases, when set, restricts the run to the cases whose lower-case names contain
	// one of them, and leaves out the memory run and queue mode's idle pickup; the
	// baseline always runs, for the ratios.
	Cases []string
	// Reloads, when above 0, is how many reloads of digits the reload soak of a whole
	// run makes (Report.Reloads); OnlyReloads runs it alone, no case.
	Reloads     int
	OnlyReloads bool
	// Isolate runs each measurement with the load generator and the case's servers
	// under SCHED_RR (isolate), and adds the tail section's cases once more under the
	// default scheduler (their names end in sharedSuffix); false: every case under the
	// default scheduler, shared with whatever else runs.
	Isolate  bool
	Progress io.Writer // the progress bar; nil: none
}

// wants reports whether the run drives the case called name.
func (c Config) wants(name string) bool {
	if len(c.Cases) == 0 || name == Baseline {
		return true
	}
	// The default scheduler's repeats, only where asked for by name (the tail
	// section), not in every run that names one of their cases.
	if strings.HasSuffix(name, sharedSuffix) && !slices.ContainsFunc(c.Cases, func(w string) bool {
		return strings.Contains(sharedSuffix, w)
	}) {
		return false
	}
	for _, w := range c.Cases {
		if strings.Contains(strings.ToLower(name), w) {
			return true
		}
	}
	return false
}

// harness holds the processes of a run.
type harness struct {
	cfg   Config
	procs []*Proc
	dirs  []string // removed after the processes have stopped
	bar   *progress
	// isolateErr is why isolate failed, once: the measurements after it are shared.
	isolateErr error
}

// sched says how the run's measurements were scheduled.
func (h *harness) sched() string {
	switch {
	case !h.cfg.Isolate:
		return schedShared
	case h.isolateErr != nil:
		return schedShared + " (isolation was refused: " + h.isolateErr.Error() + ")"
	}
	return schedIsolated
}

func (h *harness) start(name, bin string, readyPath string, env ...string) (*Proc, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	addr := "127.0.0.1:" + strconv.Itoa(port)
	// GRPC_PORT=0 first, so that a case that serves gRPC says where (a later value wins).
	env = append(append([]string{"GRPC_PORT=0"}, env...), "LISTEN_ADDR="+addr, "WORKER_LISTEN_ADDR="+addr, echoAddrEnv+"="+addr)
	p, err := start(name, h.cfg.Root, bin, port, readyPath, env)
	if err != nil {
		return nil, err
	}
	h.procs = append(h.procs, p)
	return p, nil
}

// withGRPC is the environment of an inferd that also serves gRPC, on a free loopback
// port, and that port's address.
func withGRPC(env []string) ([]string, string, error) {
	port, err := freePort()
	if err != nil {
		return nil, "", err
	}
	addr := "127.0.0.1:" + strconv.Itoa(port)
	return append(env, "GRPC_LISTEN_ADDR="+addr), addr, nil
}

func (h *harness) inferd(name string, env ...string) (*Proc, error) {
	env = append([]string{
		"MODELS_DIR=" + h.cfg.ModelsDir,
		"RATE_LIMIT_RPS=0",
		// The async cases submit hundreds of thousands of jobs with one key, whose
		// records the byte budget would count for JOB_TTL: they measure throughput, and
		// past the budget they would measure 429s.
		"MAX_JOB_BYTES_PER_KEY=0",
		// One log line per request is part of what inferd does by default; it goes to
		// the harness, which drops it, as it would go to a log collector.
		"LOG_LEVEL=info",
	}, env...)
	return h.start(name, filepath.Join(h.cfg.BinDir, "inferd"), "/ready", env...)
}

func (h *harness) stopAll() {
	for _, p := range slices.Backward(h.procs) {
		p.Stop()
	}
	h.procs = nil
	for _, d := range h.dirs {
		_ = os.RemoveAll(d)
	}
	h.dirs = nil
}

// Run starts everything, drives every case and stops everything.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	h := &harness{cfg: cfg, bar: newProgress(cfg.Progress)}
	defer h.stopAll()
	defer h.bar.finish()
	rep := &Report{}

	base, err := h.start("baseline", cfg.EchoBin, "")
	if err != nil {
		return nil, err
	}
	// MAX_REQUEST_BYTES bounds a gRPC message as it does a REST body.
	env := []string{"MAX_REQUEST_BYTES=" + strconv.Itoa(oipMaxRequestBytes)}
	var grpcAddr string
	if slices.ContainsFunc(grpcCases, cfg.wants) {
		if env, grpcAddr, err = withGRPC(env); err != nil {
			return nil, err
		}
	}
	if slices.ContainsFunc(graphCases, cfg.wants) {
		dir, err := h.graphRepo(cfg.ModelsDir)
		if err != nil {
			return nil, err
		}
		env = append(env, "MODELS_DIR="+dir)
	}
	srv, err := h.inferd("inferd", env...)
	if err != nil {
		return nil, err
	}
	// The soak runs in a whole run, as the memory run does, or alone.
	if cfg.Reloads > 0 && (len(cfg.Cases) == 0 || cfg.OnlyReloads) {
		soak, err := h.reloads(ctx, srv, cfg.Reloads)
		if err != nil {
			return nil, err
		}
		rep.Reloads = &soak
		if cfg.OnlyReloads {
			return rep, nil
		}
	}
	if len(cfg.Cases) == 0 {
		if rep.Memory, err = h.memory(ctx, srv); err != nil {
			return nil, err
		}
	}

	digits := served(srv.URL, "digits", "v1")
	var noBatch *Proc
	if digits && cfg.wants(CaseDigitsOff) {
		if noBatch, err = h.inferd("inferd DYNAMIC_BATCHING=false", "DYNAMIC_BATCHING=false"); err != nil {
			return nil, err
		}
	}
	var queue *Proc
	var queueProcs []*Proc // inferd, its workers and redis-server
	queueNA := "not asked for (-cases)"
	if cfg.wants(CaseQueue) {
		first := len(h.procs)
		if queue, queueNA = h.queue(); queueNA == "" {
			queueProcs = h.procs[first:]
		}
	}
	size := cfg.OIPTensorBytes
	if size <= 0 {
		size = oipTensorBytes
	}
	tensor := oipValues(size)
	oipJSON := oipJSONBody("x", tensor)
	oipBinary, oipHeader := oipBinaryBody("x", tensor)
	digitsJSON := oipJSONBody("input", digitsPixels)
	digitsBinary, digitsHeader := oipBinaryBody("input", digitsPixels)
	const echoV2, digitsV2 = "/v2/models/echo/versions/v1/infer", "/v2/models/digits/versions/v1/infer"
	const irisV2 = "/v2/models/iris/versions/v1/infer"
	// payload is each case's request body in bytes, for the tensors section's MB/s.
	payload := map[string]int{
		Baseline: len(echoBody), CaseIris: len(irisBody), CaseIrisV2JSON: len(irisV2Body),
		CaseOIPJSON: len(oipJSON), CaseOIPBinary: len(oipBinary), CaseFloor: len(oipBinary),
	}
	noDigits := naUnless(digits, "model digits not served")
	wine := served(srv.URL, "wine", "v1")
	noWine := naUnless(wine, "model wine not served")
	rows := wineRows(wineBatchRows)
	wineOne := wineBody(rows[0])
	wineV2One, wineV2OneHeader := wineBinary(rows[:1])
	wineV2Batch, wineV2BatchHeader := wineBinary(rows)
	const wineV2 = "/v2/models/wine/versions/v1/infer"
	payload[CaseWine], payload[CaseWineV2One], payload[CaseWineV2Batch] = len(wineOne), len(wineV2One), len(wineV2Batch)
	if wine && cfg.wants(CaseWineV2Batch) {
		h.bar.show("XGBoost's own predict (tools/bench-xgboost.py)")
		rep.XGBoost, rep.XGBoostOne = library(cfg.Root, cfg.ModelsDir, rows)
	}

	type kase struct {
		name    string
		na      string
		op      func() Op
		servers []*Proc // whose CPU time the case uses
		// session, when set, opens the case's connections instead of op (gRPC).
		session func() Session
	}
	// grpcCase sends v as input of model v1; want > 0: the answer's values.
	grpcCase := func(name, na, model, input string, v []float32, raw bool, want int) kase {
		return kase{name: name, na: na, servers: []*Proc{srv}, session: func() Session {
			return grpcSession(grpcAddr, grpcInfer(model, "v1", input, v, raw), 1, answered(raw, want))
		}}
	}
	cases := []kase{
		{Baseline, "", func() Op { return postOp(base.URL, echoBody, 1) }, []*Proc{base}, nil},
		{CaseEcho, "", func() Op { return postOp(srv.URL+"/predict", echoBody, 1) }, []*Proc{srv}, nil},
		{CaseIris, "", func() Op { return postOp(srv.URL+"/predict", irisBody, 1) }, []*Proc{srv}, nil},
		{CaseIrisV2JSON, "", func() Op { return oipOp(srv.URL+irisV2, irisV2Body, -1) }, []*Proc{srv}, nil},
		{CaseDigitsOn, naUnless(digits, "model digits not served"), func() Op { return postOp(srv.URL+"/predict", digitsBody, 1) }, []*Proc{srv}, nil},
		{CaseDigitsOff, naUnless(digits, "model digits not served"), func() Op { return postOp(noBatch.URL+"/predict", digitsBody, 1) }, []*Proc{noBatch}, nil},
		{CaseBatch, "", func() Op { return postOp(srv.URL+"/predict/batch", batchOf(64), 64) }, []*Proc{srv}, nil},
		{CaseAsync, "", func() Op { return jobOp(srv.URL) }, []*Proc{srv}, nil},
		{CaseQueue, queueNA, func() Op { return jobOp(queue.URL) }, queueProcs, nil},
		{CaseOIPJSON, "", func() Op { return oipOp(srv.URL+echoV2, oipJSON, -1) }, []*Proc{srv}, nil},
		{CaseOIPBinary, "", func() Op { return oipOp(srv.URL+echoV2, oipBinary, oipHeader) }, []*Proc{srv}, nil},
		// The same bytes as the binary case, to the baseline's process.
		{CaseFloor, "", func() Op { return oipOp(base.URL+floorPath, oipBinary, oipHeader) }, []*Proc{base}, nil},
		grpcCase(CaseOIPGRPCRaw, "", "echo", "x", tensor, true, len(tensor)),
		grpcCase(CaseOIPGRPC, "", "echo", "x", tensor, false, len(tensor)),
		{CaseDigitsV2JSON, noDigits, func() Op { return oipOp(srv.URL+digitsV2, digitsJSON, -1) }, []*Proc{srv}, nil},
		{CaseDigitsV2Binary, noDigits, func() Op { return oipOp(srv.URL+digitsV2, digitsBinary, digitsHeader) }, []*Proc{srv}, nil},
		grpcCase(CaseDigitsGRPCRaw, noDigits, "digits", "input", digitsPixels, true, 0),
		grpcCase(CaseDigitsGRPC, noDigits, "digits", "input", digitsPixels, false, 0),
		{CaseWine, noWine, func() Op { return postOp(srv.URL+"/predict", wineOne, 1) }, []*Proc{srv}, nil},
		{CaseWineV2One, noWine, func() Op { return oipOp(srv.URL+wineV2, wineV2One, wineV2OneHeader) }, []*Proc{srv}, nil},
		{CaseWineV2Batch, noWine, func() Op { return oipOp(srv.URL+wineV2, wineV2Batch, wineV2BatchHeader) }, []*Proc{srv}, nil},
		{CaseHealthBare, "", func() Op { return getOp(base.URL + healthPath) }, []*Proc{base}, nil},
		{CaseHealth, "", func() Op { return getOp(srv.URL + healthPath) }, []*Proc{srv}, nil},
		{CaseGraphOne, "", func() Op { return postOp(srv.URL+"/predict", graphOneBody, 1) }, []*Proc{srv}, nil},
		{CaseEnsemble, naUnless(served(srv.URL, "iris-ensemble", "v1"), "model iris-ensemble not served"), func() Op { return postOp(srv.URL+"/predict", ensembleBody, 1) }, []*Proc{srv}, nil},
		{CaseEnsemblePairs, "", func() Op { return pairOp(srv.URL + "/predict") }, []*Proc{srv}, nil},
	}
	// In an isolated run, the tail section's cases once more under the default
	// scheduler, for what the isolated rows leave out: the slices other processes take.
	for _, c := range cases {
		if cfg.Isolate && slices.Contains(tailSectionCases, c.name) {
			c.name += sharedSuffix
			cases = append(cases, c)
		}
	}
	cases = slices.DeleteFunc(cases, func(c kase) bool { return !cfg.wants(c.name) })
	rounds := max(cfg.Rounds, 1)
	rep.Rounds = rounds
	h.bar.total = rounds * len(cases) * len(cfg.Conns)
	// Connection counts on the outside: every case at one count runs right after the
	// baseline at that count, so that the ratios compare measurements seconds apart
	// rather than minutes apart, on a machine whose speed drifts (a shared VM's can by
	// a third over a run). Rounds repeat the whole, since one short measurement here
	// can be off by a tenth: the median round of each row stands, and a ratio is the
	// median of the rounds' own (Report.paired).
	runs := make([][][]Result, len(cases)) // case, connection count, round
	for i := range runs {
		runs[i] = make([][]Result, len(cfg.Conns))
	}
	for range rounds {
		for j, n := range cfg.Conns {
			for i, c := range cases {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
				r := Result{Case: c.name, Conns: n, NA: c.na}
				if c.na == "" {
					l := &Load{Conns: n}
					if c.session != nil {
						l.Session = c.session()
					} else {
						l.Op = c.op()
					}
					r = h.drive(ctx, c.name, l, c.servers)
					r.Payload = payload[c.name]
				} else {
					h.bar.step()
				}
				runs[i][j] = append(runs[i][j], r)
			}
		}
	}
	rep.Sched = h.sched()
	for _, byConns := range runs {
		for _, rs := range byConns {
			rep.Results = append(rep.Results, Median(rs))
			rep.Runs = append(rep.Runs, rs)
		}
	}
	if queueNA != "" {
		rep.PickupNA = queueNA
	} else if len(cfg.Cases) > 0 {
		rep.PickupNA = "not measured in a run restricted by -cases"
	} else if err := h.pickup(ctx, queue, rep); err != nil {
		return nil, err
	}
	return rep, nil
}

func naUnless(ok bool, why string) string {
	if ok {
		return ""
	}
	return why
}

// drive warms a case up, then measures it for the configured duration, and the CPU
// time its servers and the load generator used meanwhile.
// load gives the case's connection count and its Op or Session.
func (h *harness) drive(ctx context.Context, name string, load *Load, servers []*Proc) Result {
	label := fmt.Sprintf("%s, %d conn", name, load.Conns)
	serverPids := make([]int, len(servers))
	for i, p := range servers {
		serverPids[i] = p.Pid()
	}
	self := []int{os.Getpid()}
	if h.cfg.Isolate && !strings.HasSuffix(name, sharedSuffix) && h.isolateErr == nil {
		restore, err := isolate(append(slices.Clone(serverPids), self...))
		if err != nil {
			h.isolateErr = err
		} else {
			defer restore()
		}
	}
	if h.cfg.Warmup > 0 {
		w := &Load{Conns: load.Conns, Op: load.Op, Session: load.Session, For: h.cfg.Warmup}
		h.bar.watch(label+" (warm-up)", &w.Done, h.cfg.Warmup)
		w.Run(ctx, func(int64) bool { return false })
	}
	l := &Load{Conns: load.Conns, Op: load.Op, Session: load.Session, Samples: true, For: h.cfg.Duration}
	h.bar.watch(label, &l.Done, h.cfg.Duration)
	server0, serverOK := cpuOf(serverPids)
	client0, clientOK := cpuOf(self)
	r := l.Run(ctx, func(int64) bool { return false })
	if server1, ok := cpuOf(serverPids); ok && serverOK {
		r.ServerCPU = server1 - server0
	}
	if client1, ok := cpuOf(self); ok && clientOK {
		r.ClientCPU = client1 - client0
	}
	h.bar.step()
	r.Case = name
	return r
}

// cpuOf is the CPU time the processes have used, together. It is not ok when one
// cannot be read: the column is then empty rather than wrong.
func cpuOf(pids []int) (time.Duration, bool) {
	var sum time.Duration
	for _, pid := range pids {
		d, err := CPUTime(pid)
		if err != nil {
			return 0, false
		}
		sum += d
	}
	return sum, true
}

// memory reads inferd's RSS idle, after MemFirst echo requests and after MemTotal.
func (h *harness) memory(ctx context.Context, srv *Proc) (*Memory, error) {
	m := &Memory{First: h.cfg.MemFirst, Total: h.cfg.MemTotal}
	var err error
	if m.IdleKB, err = RSSKB(srv.Pid()); err != nil {
		return nil, err
	}
	send := func(n int, label string) (int64, error) {
		l := &Load{Conns: 16, Op: postOp(srv.URL+"/predict", echoBody, 1)}
		h.bar.count(label, &l.Done, int64(n))
		r := l.Run(ctx, func(done int64) bool { return done >= int64(n) })
		if r.Errors > 0 {
			return 0, fmt.Errorf("memory run: %d of %d echo requests failed", r.Errors, r.Requests+r.Errors)
		}
		return RSSKB(srv.Pid())
	}
	if m.FirstKB, err = send(m.First, "memory: first echo requests"); err != nil {
		return nil, err
	}
	if m.TotalKB, err = send(m.Total-m.First, "memory: echo requests"); err != nil {
		return nil, err
	}
	return m, nil
}

// queue starts a redis-server of its own, an inferd in queue mode and two workers. A
// missing redis-server makes the queue rows n/a; the smoke test fails on that under CI.
func (h *harness) queue() (*Proc, string) {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		return nil, "redis-server not installed"
	}
	port, err := freePort()
	if err != nil {
		return nil, err.Error()
	}
	dir, err := os.MkdirTemp("", "benchhttp-redis-")
	if err != nil {
		return nil, err.Error()
	}
	h.dirs = append(h.dirs, dir)
	redis, err := start("redis-server", dir, bin, port, "", nil,
		"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir)
	if err != nil {
		return nil, err.Error()
	}
	h.procs = append(h.procs, redis)
	url := "QUEUE_URL=redis://127.0.0.1:" + strconv.Itoa(port) + "/0"
	for i := range 2 {
		if _, err := h.start(fmt.Sprintf("inferd-worker %d", i+1), filepath.Join(h.cfg.BinDir, "inferd-worker"), "/ready", "MODELS_DIR="+h.cfg.ModelsDir, url); err != nil {
			return nil, err.Error()
		}
	}
	srv, err := h.inferd("inferd, queue mode", url)
	if err != nil {
		return nil, err.Error()
	}
	return srv, ""
}

// pickup measures how soon an idle worker starts a job: one job at a time, with a
// pause before each so that both workers are back to polling an empty queue.
func (h *harness) pickup(ctx context.Context, srv *Proc, rep *Report) error {
	c := NewConn(ctx)
	defer c.Close()
	var samples []time.Duration
	for i := range h.cfg.PickupJobs {
		h.bar.show(fmt.Sprintf("queue idle pickup, job %d of %d", i+1, h.cfg.PickupJobs))
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
		j, err := runJob(ctx, c, srv.URL)
		if err != nil {
			return fmt.Errorf("queue idle pickup: %w", err)
		}
		if j.StartedAt.IsZero() {
			return errors.New("queue idle pickup: a succeeded job without started_at")
		}
		samples = append(samples, j.StartedAt.Sub(j.CreatedAt))
	}
	rep.PickupN = len(samples)
	rep.PickupP50 = Percentile(samples, 50)
	return nil
}
