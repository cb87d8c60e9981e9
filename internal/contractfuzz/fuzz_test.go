package contractfuzz_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/inferd/inferd"
	"github.com/inferd/inferd/internal/apitest"
	"github.com/inferd/inferd/internal/backend/onnx/onnxtest"
	"github.com/inferd/inferd/internal/contractfuzz"
	"github.com/inferd/inferd/internal/proctest"
)

// defaultRequests is the requests per operation of a plain `go test`.
const defaultRequests = 40

// Keys of the server under test: one per scope, and one with every scope.
const (
	predictKey = "fuzz-predict"
	readKey    = "fuzz-read"
	adminOnly  = "fuzz-admin"
	allKey     = "fuzz-all"
)

// summaryFormat is the fuzzer's last line, which CI logs and docs/development.md show.
const summaryFormat = "contractfuzz: %d requests, %d server errors, %d violations\n"

// Limits of the server under test, small so that bodies over them are cheap to send.
const (
	maxRequestBytes = 64 << 10
	maxBatchItems   = 64
)

// TestContractFuzz sends generated requests for every operation of openapi.yaml to the
// inferd binary serving the example models, and checks that no answer is a 5xx (but a
// 503 the operation declares), every answer matches the contract, client mistakes get
// a 4xx (the one the contract prescribes where it does) and valid requests are not
// refused as malformed. CONTRACTFUZZ_REQUESTS sets the requests per operation (default
// 40), CONTRACTFUZZ_SEED the seed (default 1).
func TestContractFuzz(t *testing.T) {
	onnxtest.Runtime(t) // the example models need it: fail under CI, skip elsewhere
	perOp := envInt(t, "CONTRACTFUZZ_REQUESTS", defaultRequests)
	seed := envInt(t, "CONTRACTFUZZ_SEED", 1)

	spec, err := inferd.Contract()
	if err != nil {
		t.Fatal(err)
	}
	base := startServer(t)
	c := apitest.New(t, base)
	tgt := discover(t, c)

	gen := contractfuzz.New(spec, tgt, uint64(seed))
	client := &http.Client{Timeout: time.Minute, Transport: &http.Transport{MaxIdleConnsPerHost: 16}}
	type tally struct {
		n, binary int // binary: bodies with the OIP binary tensor data extension
		kinds     map[contractfuzz.Kind]int
		statuses  map[int]int
	}
	ops := contractfuzz.Operations(spec)
	byOp := map[string]*tally{}
	total, serverErrors, violations := 0, 0, 0
	faultKinds := map[string]int{} // the same fault on the same operation, counted once
	var (
		mu        sync.Mutex
		submitted []string // jobs the run's submissions created
	)
	for _, op := range append(ops, contractfuzz.Operation{}) {
		// One operation at a time, so that only its requests are held in memory.
		var reqs []contractfuzz.Request
		if op.ID == "" {
			// Last, the records of the jobs the run submitted, finished or not, failed
			// ones included.
			op, reqs = jobRecords(ops, submitted)
		} else {
			reqs = gen.Requests(op, perOp)
		}
		statuses := make([]int, len(reqs))
		faults := make([]string, len(reqs))
		var wg sync.WaitGroup
		next := make(chan int)
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range next {
					var body []byte
					statuses[i], body, faults[i] = send(client, base, reqs[i], op)
					if id := submittedJob(op, statuses[i], body); id != "" {
						mu.Lock()
						submitted = append(submitted, id)
						mu.Unlock()
					}
				}
			}()
		}
		for i := range reqs {
			next <- i
		}
		close(next)
		wg.Wait()
		if op.ID == "oipRepositoryUnload" {
			// Its valid requests took models away: the operations after it find them again.
			for _, name := range slices.Sorted(maps.Keys(tgt.Models)) {
				if resp := c.Post("/v2/repository/models/"+name+"/load", allKey, nil); resp.Status != http.StatusOK {
					t.Fatalf("loading %s again after the unloads: %d %s", name, resp.Status, resp.Body)
				}
			}
		}

		tl := byOp[op.ID]
		if tl == nil {
			tl = &tally{kinds: map[contractfuzz.Kind]int{}, statuses: map[int]int{}}
			byOp[op.ID] = tl
		}
		for i, r := range reqs {
			total++
			tl.n++
			tl.kinds[r.Kind]++
			if r.Header.Get("Inference-Header-Content-Length") != "" || r.Header.Get("Content-Type") == "application/octet-stream" {
				tl.binary++
			}
			tl.statuses[statuses[i]]++
			if faults[i] == "" {
				continue
			}
			if statuses[i] >= 500 && statuses[i] != http.StatusServiceUnavailable {
				serverErrors++
			} else {
				violations++
			}
			what := r.What
			if what == "" {
				what = r.Kind.String()
			}
			kind := fmt.Sprintf("%s (%s): %.90s", r.Operation, what, faults[i])
			if faultKinds[kind]++; faultKinds[kind] == 1 && len(faultKinds) <= 30 {
				t.Errorf("%s\n    -> %s", r, faults[i])
			}
		}
	}
	fmt.Printf("contractfuzz: seed %d, %d requests per operation\n", seed, perOp)
	for _, op := range ops {
		tl := byOp[op.ID]
		var codes []int
		for code := range tl.statuses {
			codes = append(codes, code)
		}
		sort.Ints(codes)
		var hist []string
		for _, code := range codes {
			hist = append(hist, fmt.Sprintf("%d:%d", code, tl.statuses[code]))
		}
		binary := ""
		if tl.binary > 0 {
			binary = fmt.Sprintf("; %d binary", tl.binary)
		}
		fmt.Printf("contractfuzz: %-6s %-38s %4d requests (%d valid, %d invalid, %d odd%s)  %s\n", op.Method, op.Path, tl.n,
			tl.kinds[contractfuzz.Valid], tl.kinds[contractfuzz.Invalid], tl.kinds[contractfuzz.Odd], binary, strings.Join(hist, " "))
	}
	for _, kind := range slices.Sorted(maps.Keys(faultKinds)) {
		fmt.Printf("contractfuzz: %4dx %s\n", faultKinds[kind], kind)
	}
	fmt.Printf(summaryFormat, total, serverErrors, violations)
}

// send sends one request and returns the answer's status and what is wrong with it,
// "" when nothing is.
func send(client *http.Client, base string, r contractfuzz.Request, op contractfuzz.Operation) (int, []byte, string) {
	var body io.Reader
	if r.HasBody {
		body = bytes.NewReader(r.Body)
		if r.Chunked {
			body = io.MultiReader(bytes.NewReader(r.Body)) // no length: sent chunked
		}
	}
	req, err := http.NewRequest(r.Method, base+r.Path, body)
	if err != nil {
		return 0, nil, fmt.Sprintf("building the request: %v", err)
	}
	for k, vs := range r.Header {
		req.Header[k] = vs
	}
	if r.HasBody && !r.Chunked {
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(r.Body)), nil }
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, nil, fmt.Sprintf("transport: %v", err)
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	if err != nil {
		return resp.StatusCode, nil, fmt.Sprintf("reading the answer: %v", err)
	}
	if why := r.Judge(resp.StatusCode, got, op.Declares(http.StatusServiceUnavailable)); why != "" {
		return resp.StatusCode, got, fmt.Sprintf("%s: %.300s", why, got)
	}
	answer := &apitest.Response{Status: resp.StatusCode, Header: resp.Header, Body: got}
	if err := apitest.Validate(req, r.Body, answer); err != nil {
		return resp.StatusCode, got, fmt.Sprintf("%d outside openapi.yaml: %v: %.300s", resp.StatusCode, err, got)
	}
	return resp.StatusCode, got, ""
}

// submittedJob returns the id of the job a submission created, or "".
func submittedJob(op contractfuzz.Operation, status int, body []byte) string {
	if op.Method != http.MethodPost || status != http.StatusOK {
		return ""
	}
	var sub struct {
		JobID string `json:"job_id"`
	}
	_ = json.Unmarshal(body, &sub)
	return sub.JobID
}

// jobRecords returns GET /jobs/{job_id} and its requests for the jobs in ids.
func jobRecords(ops []contractfuzz.Operation, ids []string) (contractfuzz.Operation, []contractfuzz.Request) {
	var getJob contractfuzz.Operation
	for _, op := range ops {
		if op.ID == "getJob" {
			getJob = op
		}
	}
	time.Sleep(500 * time.Millisecond) // the child inferd runs the jobs meanwhile: most finish, the rest show running or pending
	var reqs []contractfuzz.Request
	for _, id := range ids {
		reqs = append(reqs, contractfuzz.Request{
			Operation: getJob.ID, Kind: contractfuzz.Valid, What: "a job the run submitted",
			Method: http.MethodGet, Path: "/jobs/" + id, Header: http.Header{"X-Api-Key": {readKey}},
		})
	}
	return getJob, reqs
}

// startServer runs the inferd binary on the example models with in-process jobs and
// returns its URL once every pipeline has loaded.
func startServer(t *testing.T) string {
	t.Helper()
	models, err := filepath.Abs("../../models")
	if err != nil {
		t.Fatal(err)
	}
	port := proctest.FreePort(t)
	env := []string{
		"PORT=" + strconv.Itoa(port),
		"MODELS_DIR=" + models,
		"API_KEYS=" + predictKey + ":predict," + readKey + ":read_models," + adminOnly + ":admin," + allKey + ":predict+read_models+admin",
		"RATE_LIMIT_RPS=0", // a 429 would hide what the server does with the request
		// The fuzzer sends keyless and unknown keys by the hundred, from one address.
		"AUTH_FAILURES_PER_MINUTE=0",
		"MAX_REQUEST_BYTES=" + strconv.Itoa(maxRequestBytes),
		"MAX_BATCH_ITEMS=" + strconv.Itoa(maxBatchItems),
		"LOG_LEVEL=warn",
	}
	if lib := os.Getenv("ONNXRUNTIME_LIB"); lib != "" {
		env = append(env, "ONNXRUNTIME_LIB="+lib)
	}
	p := proctest.Start(t, proctest.Build(t, "inferd"), port, "/ready", env...)
	t.Cleanup(func() {
		if strings.Contains(p.Logs(), "WARNING: DATA RACE") {
			t.Errorf("the server reported a data race:\n%s", p.Logs())
		}
	})
	return p.URL
}

// discover learns the server's models, their input features and a few jobs.
func discover(t *testing.T, c *apitest.Client) contractfuzz.Target {
	t.Helper()
	tgt := contractfuzz.Target{
		Models:          map[string][]string{},
		Features:        map[string][]string{},
		Keys:            map[string]string{"predict": predictKey, "read_models": readKey, "admin": adminOnly},
		AdminKey:        allKey,
		MaxRequestBytes: maxRequestBytes,
		MaxBatchItems:   maxBatchItems,
		Unserved:        map[string]bool{},
	}
	var list struct {
		Models []struct{ Name, Version string } `json:"models"`
	}
	c.Get("/models", allKey).JSON(t, &list)
	for _, m := range list.Models {
		tgt.Models[m.Name] = append(tgt.Models[m.Name], m.Version)
		var meta struct {
			Preprocess []struct {
				Params map[string]json.RawMessage `json:"params"`
			} `json:"preprocess"`
		}
		c.Get("/models/"+m.Name+"/"+m.Version, allKey).JSON(t, &meta)
		for _, step := range meta.Preprocess {
			var features []string
			if json.Unmarshal(step.Params["features"], &features) == nil && len(features) > 0 {
				tgt.Features[m.Name] = features
			}
		}
	}
	for i := range 4 {
		var sub struct {
			JobID string `json:"job_id"`
		}
		c.Post("/predict/async", allKey, map[string]any{"model": "echo", "data": i}).JSON(t, &sub)
		tgt.JobIDs = append(tgt.JobIDs, sub.JobID)
	}
	if c.Get("/admin/queues", allKey).Status == http.StatusNotFound {
		tgt.Unserved["queueUI"] = true
	}
	return tgt
}

func envInt(t *testing.T, name string, def int) int {
	t.Helper()
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		t.Fatalf("%s=%q: want a number", name, s)
	}
	return n
}
