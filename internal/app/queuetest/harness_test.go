package queuetest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/inferd/inferd/internal/apitest"
	"github.com/inferd/inferd/internal/proctest"
	"github.com/inferd/inferd/internal/redistest"
	"github.com/inferd/inferd/internal/testkit"
)

// The built-in development keys: the processes run without API_KEYS.
const (
	devKey   = "dev-key"   // predict, read_models
	adminKey = "admin-key" // and admin
)

func TestMain(m *testing.M) {
	// apitest's clients and http.Get use http.DefaultTransport, which keeps only two
	// idle connections per host. These tests poll from many goroutines at once and
	// would otherwise open a new connection for most requests, leaving thousands in
	// TIME_WAIT and measuring connection set-up in the benchmark.
	http.DefaultTransport.(*http.Transport).MaxIdleConnsPerHost = 64
	os.Exit(m.Run())
}

// skipShort skips a test with -short: every test here runs several processes for
// seconds to minutes, which make test runs and make test-short leaves out.
func skipShort(tb testing.TB) {
	tb.Helper()
	if testing.Short() {
		tb.Skip("queue mode end to end, with built binaries; runs without -short (make test)")
	}
}

// binary returns the path of cmd/<name>: the -race build of proctest, or the one in
// INFERD_BIN_DIR when that is set (to benchmark an optimised build).
func binary(tb testing.TB, name string) string {
	tb.Helper()
	dir := os.Getenv("INFERD_BIN_DIR")
	if dir == "" {
		return proctest.Build(tb, name)
	}
	bin, err := filepath.Abs(filepath.Join(dir, name))
	if err == nil {
		_, err = os.Stat(bin)
	}
	if err != nil {
		tb.Fatalf("INFERD_BIN_DIR=%s: %v", dir, err)
	}
	return bin
}

// cluster is one private Redis and a model repository, shared by the servers and
// workers a test starts on it.
type cluster struct {
	tb        testing.TB
	redis     *redistest.Server
	queueURL  string // QUEUE_URL, when not redis's (a Redis Cluster's)
	models    string // MODELS_DIR
	serverBin string
	workerBin string
}

func newCluster(tb testing.TB) *cluster {
	tb.Helper()
	skipShort(tb)
	return newClusterOn(tb, redistest.Start(tb))
}

// newClusterOn is newCluster on a Redis the test started itself (with persistence, or
// replicas).
func newClusterOn(tb testing.TB, redis *redistest.Server) *cluster {
	tb.Helper()
	skipShort(tb)
	return &cluster{
		tb:        tb,
		redis:     redis,
		models:    tb.TempDir(),
		serverBin: binary(tb, "inferd"),
		workerBin: binary(tb, "inferd-worker"),
	}
}

// addSlowModel puts an echo model with a simulated latency into the cluster's model
// repository, for jobs that must still be running when the test acts on them. Call it
// before starting processes: they discover models at start.
func (c *cluster) addSlowModel(name, version string, delay time.Duration) {
	c.tb.Helper()
	proctest.AddSlowModel(c.tb, c.models, name, version, delay)
}

// server is a running inferd API server.
type server struct {
	*proctest.Proc
	api *apitest.Client
}

// startServer runs an API server in queue mode and waits until it is ready. env
// entries override the defaults (the last of two equal names wins).
func (c *cluster) startServer(env ...string) *server {
	c.tb.Helper()
	p := c.start(c.serverBin, "PORT", []string{
		"RATE_LIMIT_RPS=0", // tests and the benchmark submit far faster than a client would
	}, env)
	return &server{Proc: p, api: apitest.New(c.tb, p.URL)}
}

// worker is a running inferd-worker.
type worker struct {
	*proctest.Proc
}

// startWorker runs a worker and waits until it is ready: its pipelines are loaded and
// it takes jobs.
func (c *cluster) startWorker(env ...string) *worker {
	c.tb.Helper()
	return &worker{Proc: c.start(c.workerBin, "WORKER_PORT", []string{"WORKER_CONCURRENCY=4"}, env)}
}

// start runs bin on the cluster's Redis and models with its HTTP port in portVar, then
// defaults, then env, and waits until /ready answers 200.
func (c *cluster) start(bin, portVar string, defaults, env []string) *proctest.Proc {
	c.tb.Helper()
	port := proctest.FreePort(c.tb)
	url := c.queueURL
	if url == "" {
		url = c.redis.URL()
	}
	all := append([]string{
		portVar + "=" + strconv.Itoa(port),
		"QUEUE_URL=" + url,
		"MODELS_DIR=" + c.models,
		"SHUTDOWN_TIMEOUT=10s",
	}, defaults...)
	p := proctest.Start(c.tb, bin, port, "/ready", append(all, env...)...)
	failOnRace(c.tb, p)
	return p
}

// failOnRace fails the test when a -race binary reported a data race. It runs before
// proctest kills the process (cleanups run last-registered first), and a race report is
// printed when the race happens, not at exit.
func failOnRace(tb testing.TB, p *proctest.Proc) {
	tb.Cleanup(func() {
		if strings.Contains(p.Logs(), "WARNING: DATA RACE") {
			tb.Errorf("the race detector fired in %s", p.URL)
		}
	})
}

// exited reports whether the process has ended, without waiting.
func exited(p *proctest.Proc) bool {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := p.Wait(ctx)
	return err == nil
}

// waitExit waits for the process to end and fails the test unless it exits with 0.
func waitExit(tb testing.TB, p *proctest.Proc, within time.Duration) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), within)
	defer cancel()
	code, err := p.Wait(ctx)
	if err != nil || code != 0 {
		tb.Fatalf("exit code %d (%v); logs:\n%s", code, err, p.Logs())
	}
}

// metric returns the value of one sample (name with its labels, as exposed) from the
// process's /metrics, or 0 when it is absent.
func metric(tb testing.TB, p *proctest.Proc, sample string) float64 {
	tb.Helper()
	resp, err := http.Get(p.URL + "/metrics")
	if err != nil {
		tb.Fatalf("scraping %s: %v", p.URL, err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), sample+" "); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				tb.Fatalf("sample %s: %v", sc.Text(), err)
			}
			return f
		}
	}
	if err := sc.Err(); err != nil {
		tb.Fatalf("scraping %s: %v", p.URL, err)
	}
	return 0
}

// families returns the names of the metric families the process's /metrics exports.
func families(tb testing.TB, p *proctest.Proc) map[string]bool {
	tb.Helper()
	resp, err := http.Get(p.URL + "/metrics")
	if err != nil {
		tb.Fatalf("scraping %s: %v", p.URL, err)
	}
	defer resp.Body.Close()
	out := map[string]bool{}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "# TYPE "); ok {
			name, _, _ := strings.Cut(rest, " ")
			out[name] = true
		}
	}
	if err := sc.Err(); err != nil {
		tb.Fatalf("scraping %s: %v", p.URL, err)
	}
	return out
}

// probe answers the status of GET path on the process, or 0 when nothing answers.
// Worker probes are not part of openapi.yaml, so they bypass apitest.
func probe(p *proctest.Proc, path string) int {
	resp, err := http.Get(p.URL + path)
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

// jobSpec is one asynchronous prediction: a single one when Items is nil.
type jobSpec struct {
	Model   string            `json:"model"`
	Version string            `json:"version,omitempty"`
	Data    json.RawMessage   `json:"data,omitempty"`
	Items   []json.RawMessage `json:"items,omitempty"`
	// CallbackURL is the submission's callback_url, when not "".
	CallbackURL string `json:"callback_url,omitempty"`
}

func single(model, version, data string) jobSpec {
	return jobSpec{Model: model, Version: version, Data: json.RawMessage(data)}
}

func batch(model, version string, items ...string) jobSpec {
	s := jobSpec{Model: model, Version: version}
	for _, it := range items {
		s.Items = append(s.Items, json.RawMessage(it))
	}
	return s
}

func (s jobSpec) path() string {
	if s.Items != nil {
		return "/predict/async/batch"
	}
	return "/predict/async"
}

// want is the result an echo model gives for the job: its data, or its items in order.
func (s jobSpec) want() json.RawMessage {
	if s.Items == nil {
		return s.Data
	}
	b, _ := json.Marshal(s.Items) // RawMessages that came from valid JSON cannot fail
	return b
}

// jobRecord is the contract's JobRecord.
type jobRecord struct {
	JobID        string          `json:"job_id"`
	Status       string          `json:"status"`
	Model        string          `json:"model"`
	Version      string          `json:"version"`
	Batch        bool            `json:"batch"`
	CreatedAt    time.Time       `json:"created_at"`
	StartedAt    *time.Time      `json:"started_at"`
	FinishedAt   *time.Time      `json:"finished_at"`
	Result       json.RawMessage `json:"result"`
	ErrorMessage *string         `json:"error_message"`
	WorkerLostAt *time.Time      `json:"worker_lost_at"`
	RetryAt      *time.Time      `json:"retry_at"`
}

// rank orders statuses: a job's status never moves to a lower rank.
var rank = map[string]int{"created": 0, "pending": 1, "running": 2, "succeeded": 3, "failed": 3, "cancelled": 3}

func (r jobRecord) final() bool { return rank[r.Status] == 3 }

// trySubmit submits a job, for goroutines: it fails nothing itself.
func (s *server) trySubmit(spec jobSpec) (string, error) {
	resp, err := s.api.TryDo(s.api.NewRequest(http.MethodPost, spec.path(), devKey, spec))
	if err != nil {
		return "", err
	}
	if resp.Status != http.StatusOK {
		return "", fmt.Errorf("submit: status %d: %s", resp.Status, resp.Body)
	}
	var out struct {
		JobID string `json:"job_id"`
	}
	if err := json.Unmarshal(resp.Body, &out); err != nil || out.JobID == "" {
		return "", fmt.Errorf("submit: no job_id in %s (%v)", resp.Body, err)
	}
	return out.JobID, nil
}

func (s *server) submit(tb testing.TB, spec jobSpec) string {
	tb.Helper()
	id, err := s.trySubmit(spec)
	if err != nil {
		tb.Fatal(err)
	}
	return id
}

// tryPoll reads a job's record, for goroutines.
func (s *server) tryPoll(id string) (jobRecord, error) {
	var rec jobRecord
	resp, err := s.api.TryDo(s.api.NewRequest(http.MethodGet, "/predict/async/"+id, devKey, nil))
	if err != nil {
		return rec, err
	}
	if resp.Status != http.StatusOK {
		return rec, fmt.Errorf("poll %s: status %d: %s", id, resp.Status, resp.Body)
	}
	if err := json.Unmarshal(resp.Body, &rec); err != nil {
		return rec, fmt.Errorf("poll %s: %w", id, err)
	}
	return rec, nil
}

func (s *server) poll(tb testing.TB, id string) jobRecord {
	tb.Helper()
	rec, err := s.tryPoll(id)
	if err != nil {
		tb.Fatal(err)
	}
	return rec
}

// waitStatus polls until the job has status want, and fails the test if it ends with
// another status, moves backwards, or takes longer than within.
func (s *server) waitStatus(tb testing.TB, id, want string, within time.Duration) jobRecord {
	tb.Helper()
	last := jobRecord{Status: "created"}
	testkit.Eventually(tb, within, func() bool {
		rec := s.poll(tb, id)
		if rank[rec.Status] < rank[last.Status] {
			tb.Fatalf("job %s went from %s back to %s", id, last.Status, rec.Status)
		}
		last = rec
		if rec.final() && rec.Status != want {
			tb.Fatalf("job %s ended %s, want %s: %+v", id, rec.Status, want, rec)
		}
		return rec.Status == want
	}, "job %s %s: it is still %s", id, want, func() string { return last.Status })
	return last
}

// requireModel fails the test when the server has not loaded a model of the cluster's
// repository, with a message that says so rather than a puzzling job failure later.
// It asks /debug/models/loaded, not /models: a version whose model.yaml the repository
// rejects is listed but not loaded.
func (s *server) requireModel(tb testing.TB, name, version string) {
	tb.Helper()
	resp := s.api.Get("/debug/models/loaded", adminKey)
	var list struct {
		Models []struct{ Name, Version string } `json:"models"`
	}
	resp.JSON(tb, &list)
	for _, m := range list.Models {
		if m.Name == name && m.Version == version {
			return
		}
	}
	models := s.api.Get("/models", devKey)
	tb.Fatalf("the server has not loaded %s/%s from MODELS_DIR (loaded: %s; listed: %s): this test "+
		"needs an echo model with a simulated delay from the model repository (see addSlowModel)",
		name, version, bytes.TrimSpace(resp.Body), bytes.TrimSpace(models.Body))
}
