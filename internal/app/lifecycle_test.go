package app_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	pb "github.com/inferd/inferd/gen/inference"
	"github.com/inferd/inferd/internal/apitest"
	"github.com/inferd/inferd/internal/proctest"
	"github.com/inferd/inferd/internal/testkit"
)

// The lifecycle of models after start-up, over the server's sockets: what one model's
// failed load does to readiness, a storm of loads and unloads, and the jobs an unload
// finds.

// readyBody is /ready's answer.
type readyBody struct {
	Status string
	Failed []failedVersion
}

type failedVersion struct {
	Name, Version, Error string
	AtStart              bool `json:"at_start"`
}

// indexEntry is one entry of the repository index.
type indexEntry struct{ Name, Version, State, Reason string }

func repositoryIndex(t *testing.T, s *started) map[string]indexEntry {
	t.Helper()
	var idx []indexEntry
	if resp := s.c.Post("/v2/repository/index", "admin-key", nil); resp.Status != http.StatusOK {
		t.Fatalf("index: %d %s", resp.Status, resp.Body)
	} else {
		resp.JSON(t, &idx)
	}
	out := map[string]indexEntry{}
	for _, e := range idx {
		out[e.Name+" "+e.Version] = e
	}
	return out
}

// metricValue is the value of one sample of /metrics, by its name and labels as
// exposed; "" when it is absent.
func metricValue(t *testing.T, s *started, sample string) string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(sample) + ` (\S+)$`).FindStringSubmatch(string(s.c.Get("/metrics", "").Body))
	if m == nil {
		return ""
	}
	return m[1]
}

// TestFailedLoadAfterStartKeepsTheServerReady: with strict readiness (the default), a
// load after start that fails (a repository load of a model copied in with a corrupt
// model.onnx or a malformed model.yaml, a reload of a version whose file went bad)
// answers its failure and leaves the server ready on every probe: /ready,
// /v2/health/ready, gRPC ServerReady and the gRPC health service, none of which ever
// says otherwise while the loads run. The failure shows where operators look: /ready's
// failed list (at_start false), the repository index with the reason, and
// inferd_model_load_failed; the other models keep serving.
func TestFailedLoadAfterStartKeepsTheServerReady(t *testing.T) {
	dir := t.TempDir()
	testkit.CopyDir(t, repoModels(t), dir)
	s := startApp(t, map[string]string{"MODELS_DIR": dir, "RATE_LIMIT_RPS": "0"}, true)
	conn := grpcConn(t, s)
	grpcc, health := pb.NewGRPCInferenceServiceClient(conn), healthpb.NewHealthClient(conn)

	// Every probe, polled while the loads run, must say ready every time.
	stop := make(chan struct{})
	var probes sync.WaitGroup
	var polls, unready atomic.Int64
	probes.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			polls.Add(1)
			for _, path := range []string{"/ready", "/v2/health/ready"} {
				resp, err := s.c.TryDo(s.c.NewRequest(http.MethodGet, path, "", nil))
				if err != nil || resp.Status != http.StatusOK {
					unready.Add(1)
					t.Errorf("%s while a load ran: %v %v", path, err, resp)
				}
			}
			if r, err := grpcc.ServerReady(withKey(t, ""), &pb.ServerReadyRequest{}); err != nil || !r.Ready {
				unready.Add(1)
				t.Errorf("gRPC ServerReady while a load ran: %v %v", r, err)
			}
			for _, service := range []string{"", "inference.GRPCInferenceService"} {
				if h, err := health.Check(withKey(t, ""), &healthpb.HealthCheckRequest{Service: service}); err != nil || h.Status != healthpb.HealthCheckResponse_SERVING {
					unready.Add(1)
					t.Errorf("gRPC health of %q while a load ran: %v %v", service, h, err)
				}
			}
		}
	})

	irisYAML, err := os.ReadFile(filepath.Join(dir, "iris", "v1", "model.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	irisONNX, err := os.ReadFile(filepath.Join(dir, "iris", "v1", "model.onnx"))
	if err != nil {
		t.Fatal(err)
	}
	write := func(t *testing.T, rel string, b []byte) {
		t.Helper()
		path := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name           string
		copyIn         func(t *testing.T)
		path           string // the load
		model, version string
		oip            bool     // the load answers in the protocol's error shape
		wantState      string   // in the index
		wantReason     []string // in the index's reason, and /ready's error when listed
		listed         bool     // in /ready's failed
	}{
		{"a repository load of a new model whose model.onnx is corrupt", func(t *testing.T) {
			write(t, "broken/v1/model.yaml", irisYAML)
			write(t, "broken/v1/model.onnx", []byte("this is not an ONNX model"))
		}, "/v2/repository/models/broken/load", "broken", "v1", true, "UNAVAILABLE", []string{"broken/v1/model.onnx", "not a model ONNX Runtime can load"}, true},
		{"a repository load of a new model whose model.yaml is malformed", func(t *testing.T) {
			write(t, "malformed/v1/model.yaml", []byte("backend: onnx\nartifact: [model.onnx\n"))
			write(t, "malformed/v1/model.onnx", irisONNX)
		}, "/v2/repository/models/malformed/load", "malformed", "v1", true, "UNAVAILABLE", []string{"malformed/v1/model.yaml"}, true},
		{"a reload of a serving version whose model.onnx went bad", func(t *testing.T) {
			write(t, "iris/v1/model.onnx", []byte("truncated"))
		}, "/admin/models/iris/v1/reload", "iris", "v1", false, "READY", []string{"still serves", "iris/v1/model.onnx"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.copyIn(t)
			resp := s.c.Post(tt.path, "admin-key", nil)
			code := ""
			if resp.Status == http.StatusInternalServerError && tt.oip {
				code = resp.OIPError(t).Code
			} else if resp.Status == http.StatusInternalServerError {
				code = resp.Problem(t).Code
			}
			if code != "reload_failed" {
				t.Fatalf("%s: %d %s, want 500 reload_failed", tt.path, resp.Status, resp.Body)
			}

			var ready readyBody
			if resp := s.c.Get("/ready", ""); resp.Status != http.StatusOK {
				t.Fatalf("/ready after the failed load: %d %s", resp.Status, resp.Body)
			} else {
				resp.JSON(t, &ready)
			}
			i := slices.IndexFunc(ready.Failed, func(f failedVersion) bool { return f.Name == tt.model && f.Version == tt.version })
			if ready.Status != "ready" || (i >= 0) != tt.listed || (i >= 0 && (ready.Failed[i].AtStart || !strings.Contains(ready.Failed[i].Error, tt.wantReason[0]))) {
				t.Errorf("/ready = %+v, want ready with %s %s listed %v, not at start", ready, tt.model, tt.version, tt.listed)
			}
			e := repositoryIndex(t, s)[tt.model+" "+tt.version]
			for _, want := range tt.wantReason {
				if e.State != tt.wantState || !strings.Contains(e.Reason, want) {
					t.Errorf("index entry %+v, want %s with a reason saying %q", e, tt.wantState, want)
				}
			}
			if strings.Contains(e.Reason, dir) {
				t.Errorf("the index shows the repository's absolute path: %s", e.Reason)
			}
			sample := fmt.Sprintf(`inferd_model_load_failed{model=%q,version=%q}`, tt.model, tt.version)
			if v := metricValue(t, s, sample); v != "1" {
				t.Errorf("%s = %q, want 1", sample, v)
			}
			for _, body := range []string{`{"model":"iris","data":[5.1,3.5,1.4,0.2]}`, `{"model":"iris","version":"v1","data":[5.1,3.5,1.4,0.2]}`, `{"model":"diabetes","data":[48,1,21.6,87,183,103.2,70,3,3.8918,69]}`} {
				if resp := s.c.Post("/predict", "dev-key", body); resp.Status != http.StatusOK {
					t.Errorf("predict %s after the failed load: %d %s", body, resp.Status, resp.Body)
				}
			}
		})
	}

	t.Run("the reload that succeeds clears the failure", func(t *testing.T) {
		write(t, "iris/v1/model.onnx", irisONNX)
		if resp := s.c.Post("/admin/models/iris/v1/reload", "admin-key", nil); resp.Status != http.StatusOK {
			t.Fatalf("reload: %d %s", resp.Status, resp.Body)
		}
		if e := repositoryIndex(t, s)["iris v1"]; e.State != "READY" || e.Reason != "" {
			t.Errorf("index entry %+v", e)
		}
		if v := metricValue(t, s, `inferd_model_load_failed{model="iris",version="v1"}`); v != "0" {
			t.Errorf("inferd_model_load_failed of iris v1 = %q, want 0", v)
		}
	})
	t.Run("an unload drops the failed model", func(t *testing.T) {
		for _, name := range []string{"broken", "malformed"} {
			if resp := s.c.Post("/v2/repository/models/"+name+"/unload", "admin-key", nil); resp.Status != http.StatusOK {
				t.Fatalf("unload %s: %d %s", name, resp.Status, resp.Body)
			}
		}
		var ready readyBody
		if s.c.Get("/ready", "").JSON(t, &ready); ready.Status != "ready" || len(ready.Failed) != 0 {
			t.Errorf("/ready = %+v", ready)
		}
	})
	close(stop)
	probes.Wait()
	if polls.Load() == 0 || unready.Load() != 0 {
		t.Errorf("%d of %d polls of the probes found the server unready", unready.Load(), polls.Load())
	}
}

// stormOp is one call of the storm, with when it was sent and answered.
type stormOp struct {
	name         string // load, unload, reload v1, reload v2
	status       int
	code         string // the error's code, if any
	start, end   time.Time
	wantsLoaded  bool // what the call asks of iris: loaded, or (unload) not
	transportErr error
}

// stormDuration is how long TestRepositoryStorm runs its storm: INFERD_STORM (a Go
// duration) when set, for a long run by hand, else a round of calls per goroutine.
func stormDuration(t *testing.T) time.Duration {
	v := os.Getenv("INFERD_STORM")
	if v == "" {
		return 0
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		t.Fatalf("INFERD_STORM=%q: %v", v, err)
	}
	return d
}

// TestRepositoryStorm: loads, unloads and reloads of iris from many clients at once
// over the socket, with requests that name no version beside them. Every load and
// reload succeeds (none answers model_not_found for a model on disk), every unload
// succeeds or finds iris unloaded already, and the calls run one at a time: iris is
// never half there (both versions serve, or neither is held), so the requests that name
// no version keep iris's 90/10 split and never all go to the v2 canary, and the storm
// ends in the state one of the calls that could have run last asked for. A last call
// then sets the state it asks for.
//
// INFERD_STORM=20s runs the storm for that long and logs the end state:
//
//	INFERD_STORM=20s go test -race -count=1 -v -run '^TestRepositoryStorm$' ./internal/app
func TestRepositoryStorm(t *testing.T) {
	dir := t.TempDir()
	testkit.CopyDir(t, repoModels(t), dir)
	s := startApp(t, map[string]string{"MODELS_DIR": dir, "RATE_LIMIT_RPS": "0"}, true)
	duration := stormDuration(t)
	began := time.Now()
	const clients, rounds = 6, 8

	var mu sync.Mutex
	var ops []stormOp
	answers := map[string]int{} // of the requests naming no version: v1, v2 or the code
	stop := make(chan struct{})
	var traffic sync.WaitGroup
	for range 2 {
		traffic.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				resp, err := s.c.TryDo(s.c.NewRequest(http.MethodPost, "/predict", "dev-key", `{"model":"iris","data":[6.3,2.8,5.1,1.5]}`))
				if err != nil {
					t.Errorf("predict during the storm: %v", err)
					return
				}
				key := resp.Header.Get("X-Model-Version")
				if resp.Status != http.StatusOK {
					var p apitest.Problem
					_ = json.Unmarshal(resp.Body, &p)
					key = fmt.Sprintf("%d %s", resp.Status, p.Code)
				}
				mu.Lock()
				answers[key]++
				mu.Unlock()
			}
		})
	}
	var storm sync.WaitGroup
	for g := range clients {
		storm.Go(func() {
			rnd := rand.New(rand.NewPCG(uint64(g), uint64(began.UnixNano())))
			for i := 0; ; i++ {
				if duration == 0 && i == rounds || duration > 0 && time.Since(began) > duration {
					return
				}
				op := stormOp{wantsLoaded: true}
				var path string
				switch n := rnd.IntN(4); n {
				case 0:
					op.name, path = "load", "/v2/repository/models/iris/load"
				case 1:
					op.name, path, op.wantsLoaded = "unload", "/v2/repository/models/iris/unload", false
				default:
					op.name, path = fmt.Sprintf("reload v%d", n-1), fmt.Sprintf("/admin/models/iris/v%d/reload", n-1)
				}
				op.start = time.Now()
				resp, err := s.c.TryDo(s.c.NewRequest(http.MethodPost, path, "admin-key", nil))
				op.end = time.Now()
				if op.transportErr = err; err == nil {
					op.status = resp.Status
					var body struct{ Code string }
					if resp.Status != http.StatusOK {
						_ = json.Unmarshal(resp.Body, &body)
					}
					op.code = body.Code
				}
				mu.Lock()
				ops = append(ops, op)
				mu.Unlock()
			}
		})
	}
	storm.Wait()
	close(stop)
	traffic.Wait()

	byOutcome := map[string]int{}
	for _, op := range ops {
		outcome := fmt.Sprintf("%s %d %s", op.name, op.status, op.code)
		byOutcome[strings.TrimSpace(outcome)]++
		ok := op.transportErr == nil && (op.status == http.StatusOK || op.name == "unload" && op.status == http.StatusNotFound && op.code == "model_not_found")
		if !ok {
			t.Errorf("%s during the storm: %d %s %v", op.name, op.status, op.code, op.transportErr)
		}
	}
	idx := repositoryIndex(t, s)
	v1, v2 := idx["iris v1"].State, idx["iris v2"].State
	t.Logf("storm of %s, %d calls: %v; requests naming no version: %v; end state: iris v1 %s, v2 %s",
		time.Since(began).Round(time.Millisecond), len(ops), byOutcome, answers, v1, v2)
	if v1 != v2 || (v1 != "READY" && v1 != "UNAVAILABLE") {
		t.Fatalf("after the storm iris is half there: v1 %s, v2 %s", v1, v2)
	}
	// The call that ran last is one that had not been answered when the last call was
	// sent: any other ran before that one.
	var lastSent time.Time
	for _, op := range ops {
		if op.start.After(lastSent) {
			lastSent = op.start
		}
	}
	asked := map[bool]bool{}
	for _, op := range ops {
		if !op.end.Before(lastSent) {
			asked[op.wantsLoaded] = true
		}
	}
	if loaded := v1 == "READY"; !asked[loaded] {
		t.Errorf("iris ended loaded %v, which none of the calls that could have run last asked for (%v)", loaded, asked)
	}
	if ok, canary := answers["v1"], answers["v2"]; ok+canary >= 40 && float64(canary)/float64(ok+canary) > 0.35 {
		t.Errorf("the v2 canary (10%%) took %d of the %d requests that named no version", canary, ok+canary)
	}
	for key := range answers {
		if key != "v1" && key != "v2" && key != "400 model_not_found" && key != "503 model_loading" {
			t.Errorf("requests naming no version answered %q %d times", key, answers[key])
		}
	}

	for _, last := range []struct {
		path, want string
	}{
		{"/v2/repository/models/iris/load", "READY"},
		{"/v2/repository/models/iris/unload", "UNAVAILABLE"},
		{"/admin/models/iris/v2/reload", "READY"},
	} {
		if resp := s.c.Post(last.path, "admin-key", nil); resp.Status != http.StatusOK {
			t.Fatalf("%s: %d %s", last.path, resp.Status, resp.Body)
		}
		if idx := repositoryIndex(t, s); idx["iris v1"].State != last.want || idx["iris v2"].State != last.want {
			t.Errorf("after %s: iris v1 %+v, v2 %+v, want both %s", last.path, idx["iris v1"], idx["iris v2"], last.want)
		}
	}
	canary := 0
	for range 100 {
		resp := s.c.Post("/predict", "dev-key", `{"model":"iris","data":[6.3,2.8,5.1,1.5]}`)
		if resp.Status != http.StatusOK {
			t.Fatalf("predict after the storm: %d %s", resp.Status, resp.Body)
		}
		if resp.Header.Get("X-Model-Version") == "v2" {
			canary++
		}
	}
	if canary > 35 {
		t.Errorf("after a reload of v2 alone the canary took %d of 100 requests", canary)
	}
}

// jobState is what a test reads of a job record.
type jobState struct {
	Status       string
	ErrorCode    *string `json:"error_code"`
	ErrorMessage *string `json:"error_message"`
}

// submitJobs submits n async jobs of body from 8 clients at once, as a busy client
// does, and returns their ids.
func submitJobs(t *testing.T, c *apitest.Client, n int, body string) []string {
	t.Helper()
	ids := make([]string, n)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				resp, err := c.TryDo(c.NewRequest(http.MethodPost, "/predict/async", "dev-key", body))
				if err != nil || resp.Status != http.StatusOK {
					t.Errorf("submit %d: %v %v", i, err, resp)
					return
				}
				var out struct {
					JobID string `json:"job_id"`
				}
				if err := json.Unmarshal(resp.Body, &out); err != nil {
					t.Errorf("submit %d: %v", i, err)
					return
				}
				ids[i] = out.JobID
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	return ids
}

// finishedJobs waits for every job to finish and counts them by status and error code
// ("succeeded", "failed model_unloaded", ...).
func finishedJobs(t *testing.T, c *apitest.Client, ids []string) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, id := range ids {
		var rec jobState
		testkit.Eventually(t, 2*time.Minute, func() bool {
			rec = jobState{}
			c.Get("/jobs/"+id+"?wait=10", "dev-key").JSON(t, &rec)
			return rec.Status == "succeeded" || rec.Status == "failed" || rec.Status == "cancelled"
		}, "job %s final: it is still %s", id, func() string { return rec.Status })
		key := rec.Status
		if rec.ErrorCode != nil {
			key += " " + *rec.ErrorCode
		}
		if rec.Status == "failed" && (rec.ErrorMessage == nil || rec.ErrorCode == nil || *rec.ErrorCode == "model_unloaded" && !strings.Contains(*rec.ErrorMessage, "was unloaded before this job could run")) {
			t.Errorf("job %s: %+v", id, rec)
		}
		out[key]++
	}
	return out
}

// TestUnloadKeepsAcceptedJobs: jobs accepted for a model that is then unloaded run
// before it is dropped. The unload refuses new submissions and requests at once
// (model_not_found; the index says UNLOADING) and waits for the accepted jobs, up to
// UNLOAD_TIMEOUT: every one succeeds, and the unload answers after the last. A job on
// another model holds the one job worker until the unload has begun, so that every job
// is still queued when it comes.
func TestUnloadKeepsAcceptedJobs(t *testing.T) {
	dir := t.TempDir()
	proctest.AddSlowModel(t, dir, "slow", "v1", 20*time.Millisecond)
	proctest.AddSlowModel(t, dir, "hold", "v1", time.Hour)
	s := startApp(t, map[string]string{"MODELS_DIR": dir, "RATE_LIMIT_RPS": "0", "JOB_WORKERS": "1"}, true)
	blocker := submitJobs(t, s.c, 1, `{"model":"hold","data":1}`)[0]
	ids := submitJobs(t, s.c, 30, `{"model":"slow","data":1}`)

	unloaded := make(chan *apitest.Response, 1)
	go func() {
		resp, err := s.c.TryDo(s.c.NewRequest(http.MethodPost, "/v2/repository/models/slow/unload", "admin-key", nil))
		if err != nil {
			t.Errorf("unload: %v", err)
		}
		unloaded <- resp
	}()
	testkit.Eventually(t, 30*time.Second, func() bool { return repositoryIndex(t, s)["slow v1"].State == "UNLOADING" },
		"the index showing the unload under way: %s", func() string { return fmt.Sprintf("%+v", repositoryIndex(t, s)) })
	// While the unload waits for the jobs, the model takes no new work.
	for path, body := range map[string]string{"/predict/async": `{"model":"slow","data":1}`, "/predict": `{"model":"slow","data":1}`} {
		if r := s.c.Post(path, "dev-key", body); r.Status != http.StatusBadRequest || r.Problem(t).Code != "model_not_found" {
			t.Errorf("%s while the unload waits: %d %s, want 400 model_not_found", path, r.Status, r.Body)
		}
	}
	if r := s.c.Post("/v2/models/slow/infer", "dev-key", `{"inputs":[{"name":"x","shape":[1],"datatype":"INT64","data":[1]}]}`); r.Status != http.StatusNotFound || r.OIPError(t).Code != "model_not_found" {
		t.Errorf("/v2 infer while the unload waits: %d %s, want 404 model_not_found", r.Status, r.Body)
	}
	select {
	case resp := <-unloaded:
		t.Fatalf("the unload answered (%v) before the jobs accepted for the model ran", resp)
	default:
	}
	if resp := s.c.Do(s.c.NewRequest(http.MethodDelete, "/predict/async/"+blocker, "dev-key", nil)); resp.Status != http.StatusOK {
		t.Fatalf("cancel the blocking job: %d %s", resp.Status, resp.Body)
	}
	if resp := <-unloaded; resp == nil || resp.Status != http.StatusOK {
		t.Fatalf("unload: %v", resp)
	}
	// The unload answered after the last job: none is left to run.
	for _, id := range ids {
		var rec jobState
		if s.c.Get("/jobs/"+id, "dev-key").JSON(t, &rec); rec.Status != "succeeded" || rec.ErrorCode != nil {
			t.Errorf("job %s is %+v when the unload answered", id, rec)
		}
	}
	if e := repositoryIndex(t, s)["slow v1"]; e.State != "UNAVAILABLE" {
		t.Errorf("index after the unload: %+v", e)
	}
}

// TestUnloadWithQueuedDigitsJobs: 150 digits jobs queued, then an unload of digits:
// how many succeeded, how many failed model_unloaded (the figure of issue 36,
// in-process; queuetest has queue mode's). A job on another model holds the one job
// worker until the unload has begun, so all 150 are still queued when it comes: with
// the default UNLOAD_TIMEOUT the unload waits and every one succeeds, with
// UNLOAD_TIMEOUT=0s every one fails model_unloaded, and no job fails any other way.
func TestUnloadWithQueuedDigitsJobs(t *testing.T) {
	zeros := "[" + strings.TrimSuffix(strings.Repeat("0,", 64), ",") + "]"
	for _, tt := range []struct {
		timeout string
		want    map[string]int
	}{
		{"", map[string]int{"succeeded": 150}},
		{"0s", map[string]int{"failed model_unloaded": 150}},
	} {
		t.Run("UNLOAD_TIMEOUT="+tt.timeout, func(t *testing.T) {
			dir := t.TempDir()
			testkit.CopyDir(t, filepath.Join(repoModels(t), "digits"), filepath.Join(dir, "digits"))
			proctest.AddSlowModel(t, dir, "slow", "v1", time.Hour)
			env := map[string]string{"MODELS_DIR": dir, "RATE_LIMIT_RPS": "0", "JOB_WORKERS": "1"}
			if tt.timeout != "" {
				env["UNLOAD_TIMEOUT"] = tt.timeout
			}
			s := startApp(t, env, true)
			blocker := submitJobs(t, s.c, 1, `{"model":"slow","data":1}`)[0]
			ids := submitJobs(t, s.c, 150, `{"model":"digits","data":`+zeros+`}`)
			waiting := metricValue(t, s, "inferd_jobs_queued") + " queued"
			start := time.Now()
			unloaded := make(chan *apitest.Response, 1)
			go func() {
				resp, err := s.c.TryDo(s.c.NewRequest(http.MethodPost, "/v2/repository/models/digits/unload", "admin-key", nil))
				if err != nil {
					t.Errorf("unload: %v", err)
				}
				unloaded <- resp
			}()
			// Once the unload has begun (waiting for the jobs, or done), the worker is let go.
			testkit.Eventually(t, 30*time.Second, func() bool { return repositoryIndex(t, s)["digits v1"].State != "READY" }, "the unload begun")
			if resp := s.c.Do(s.c.NewRequest(http.MethodDelete, "/predict/async/"+blocker, "dev-key", nil)); resp.Status != http.StatusOK {
				t.Fatalf("cancel the blocking job: %d %s", resp.Status, resp.Body)
			}
			resp := <-unloaded
			if resp == nil || resp.Status != http.StatusOK {
				t.Fatalf("unload: %v", resp)
			}
			took := time.Since(start)
			counts := finishedJobs(t, s.c, ids)
			t.Logf("150 digits jobs, then an unload (%s when it was sent; it answered in %s): %v", waiting, took.Round(time.Millisecond), counts)
			if !maps.Equal(counts, tt.want) {
				t.Errorf("jobs %v, want %v", counts, tt.want)
			}
		})
	}
}
