package contractfuzz_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
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

// summaryFormat is the fuzzer's last line, which CI logs and README.md show.
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
		n        int
		kinds    map[contractfuzz.Kind]int
		statuses map[int]int
	}
	ops := contractfuzz.Operations(spec)
	byOp := map[string]*tally{}
	total, serverErrors, violations := 0, 0, 0
	faultKinds := map[string]int{} // the same fault on the same operation, counted once
	for _, op := range ops {
		// One operation at a time, so that only its requests are held in memory.
		reqs := gen.Requests(op, perOp)
		statuses := make([]int, len(reqs))
		faults := make([]string, len(reqs))
		var wg sync.WaitGroup
		next := make(chan int)
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range next {
					statuses[i], faults[i] = send(client, base, reqs[i], op)
				}
			}()
		}
		for i := range reqs {
			next <- i
		}
		close(next)
		wg.Wait()

		tl := &tally{kinds: map[contractfuzz.Kind]int{}, statuses: map[int]int{}}
		byOp[op.ID] = tl
		for i, r := range reqs {
			total++
			tl.n++
			tl.kinds[r.Kind]++
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
		fmt.Printf("contractfuzz: %-6s %-38s %4d requests (%d valid, %d invalid, %d odd)  %s\n", op.Method, op.Path, tl.n,
			tl.kinds[contractfuzz.Valid], tl.kinds[contractfuzz.Invalid], tl.kinds[contractfuzz.Odd], strings.Join(hist, " "))
	}
	for _, kind := range sortedKeys(faultKinds) {
		fmt.Printf("contractfuzz: %4dx %s\n", faultKinds[kind], kind)
	}
	fmt.Printf(summaryFormat, total, serverErrors, violations)
}

// send sends one request and returns the answer's status and what is wrong with it,
// "" when nothing is.
func send(client *http.Client, base string, r contractfuzz.Request, op contractfuzz.Operation) (int, string) {
	var body io.Reader
	if r.HasBody {
		body = bytes.NewReader(r.Body)
		if r.Chunked {
			body = io.MultiReader(bytes.NewReader(r.Body)) // no length: sent chunked
		}
	}
	req, err := http.NewRequest(r.Method, base+r.Path, body)
	if err != nil {
		return 0, fmt.Sprintf("building the request: %v", err)
	}
	for k, vs := range r.Header {
		req.Header[k] = vs
	}
	if r.HasBody && !r.Chunked {
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(r.Body)), nil }
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, fmt.Sprintf("transport: %v", err)
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	if err != nil {
		return resp.StatusCode, fmt.Sprintf("reading the answer: %v", err)
	}
	if why := r.Judge(resp.StatusCode, got, op.Declares(http.StatusServiceUnavailable)); why != "" {
		return resp.StatusCode, fmt.Sprintf("%s: %.300s", why, got)
	}
	answer := &apitest.Response{Status: resp.StatusCode, Header: resp.Header, Body: got}
	if err := apitest.Validate(req, r.Body, answer); err != nil {
		return resp.StatusCode, fmt.Sprintf("%d outside openapi.yaml: %v: %.300s", resp.StatusCode, err, got)
	}
	return resp.StatusCode, ""
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

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
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
