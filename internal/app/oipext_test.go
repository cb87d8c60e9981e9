package app_test

import (
	"encoding/json"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/inferd/inferd/internal/testkit"
)

// TestOIPUnversioned: iris's rule sends 90% of its predictions to v1 and 10% to v2,
// whose tensors differ (v1's answer is named logits, after the model output its steps
// read, v2's probabilities). 200 calls of /v2 metadata and infer without a version see
// one signature, every output that metadata names is served, and each infer ranks
// first the class /predict gives the same flower.
func TestOIPUnversioned(t *testing.T) {
	s := startOIP(t, nil)
	label, _ := topOfPredict(t, s, "iris", `[5.1,3.5,1.4,0.2]`)
	if label != "setosa" {
		t.Fatalf("/predict says %s", label)
	}
	signatures := map[string]int{}
	for range 200 {
		var md struct {
			Inputs  json.RawMessage `json:"inputs"`
			Outputs []struct {
				Name string `json:"name"`
			} `json:"outputs"`
		}
		resp := s.c.Get("/v2/models/iris", "k-read")
		resp.JSON(t, &md)
		var outs []string
		for _, o := range md.Outputs {
			outs = append(outs, o.Name)
		}
		signatures[string(md.Inputs)+strings.Join(outs, ",")]++
		for _, name := range outs {
			r := oipPost(s, "/v2/models/iris/infer", "k-all",
				`{"inputs":[{"name":"input","shape":[1,4],"datatype":"FP32","data":[5.1,3.5,1.4,0.2]}],"outputs":[{"name":"`+name+`"}]}`)
			if r.Status != http.StatusOK {
				t.Fatalf("infer asking for %s, which the metadata names: %d %s", name, r.Status, r.Body)
			}
			var ans oipResponse
			r.JSON(t, &ans)
			probs := floats(t, ans.Outputs[0].Data)
			if top := slices.Index(probs, slices.Max(probs)); ans.ModelVersion != "v1" || top != 0 {
				t.Fatalf("%s ranked class %d first (setosa is 0): %s", ans.ModelVersion, top, r.Body)
			}
		}
	}
	if len(signatures) != 1 {
		t.Errorf("GET /v2/models/iris described %d signatures: %v", len(signatures), signatures)
	}
}

// TestOIPErrorShapes: every error under /v2, whatever raised it (routing, net/http's
// parser, the validator, the key, a limit, the model), answers the protocol's
// {"error": ...} with a code; apitest and rawExchange validate each against the
// contract.
func TestOIPErrorShapes(t *testing.T) {
	s := startOIP(t, map[string]string{"MAX_REQUEST_BYTES": "1024", "AUTH_FAILURES_PER_MINUTE": "1"})
	addr := strings.TrimPrefix(s.url, "http://")
	infer := `{"inputs":[{"name":"input","shape":[1,4],"datatype":"FP32","data":[5.1,3.5,1.4,0.2]}]}`
	withKey := func(method, path, key, body, ct string) *http.Request {
		var b any
		if body != "" {
			b = body
		}
		req := s.c.NewRequest(method, path, key, b)
		if ct != "" {
			req.Header.Set("Content-Type", ct)
		}
		return req
	}
	brotli := withKey("POST", "/v2/models/iris/infer", "k-all", infer, "application/json")
	brotli.Header.Set("Content-Encoding", "br")
	// The throttled key fails once (its one failure a minute), then is throttled.
	s.c.Do(withKey("GET", "/v2/models/iris", "k-throttled", "", ""))
	tests := []struct {
		name   string
		req    *http.Request
		raw    string // sent as is instead of req
		status int
		code   string
	}{
		{"unknown path", withKey("GET", "/v2/models/iris/versions/v1/nope", "k-all", "", ""), "", 404, "not_found"},
		{"unknown path at the root", withKey("GET", "/v2/nope", "k-all", "", ""), "", 404, "not_found"},
		{"a method the path does not take", withKey("DELETE", "/v2/models/iris", "k-all", "", ""), "", 405, "method_not_allowed"},
		{"a malformed escape", nil, "POST /v2/models/%zz/infer HTTP/1.1\r\nHost: x\r\nX-API-Key: k-all\r\nContent-Length: 0\r\n\r\n", 400, "invalid_request"},
		{"headers over the limit", nil, "GET /v2/models/iris HTTP/1.1\r\nHost: x\r\nX-Big: " + strings.Repeat("a", 80<<10) + "\r\n\r\n", 431, "header_too_large"},
		{"a body that is not JSON", withKey("POST", "/v2/models/iris/infer", "k-all", `{"inputs":`, ""), "", 400, "invalid_request"},
		{"a body naming a member twice", withKey("POST", "/v2/models/iris/infer", "k-all", `{"inputs":[],"inputs":[]}`, ""), "", 400, "invalid_request"},
		{"a binary header longer than the body", nil, "POST /v2/models/iris/infer HTTP/1.1\r\nHost: x\r\nX-API-Key: k-all\r\nInference-Header-Content-Length: 99\r\nContent-Length: 2\r\n\r\n{}", 400, "invalid_request"},
		{"an index request of the wrong type", withKey("POST", "/v2/repository/index", "k-all", `{"ready":"yes"}`, "application/json"), "", 400, "invalid_request"},
		{"a load parameter inferd does not take", withKey("POST", "/v2/repository/models/iris/load", "k-admin", `{"parameters":{"config":"{}"}}`, ""), "", 400, "invalid_request"},
		{"no key", withKey("POST", "/v2/models/iris/infer", "", infer, ""), "", 401, "unauthorized"},
		{"no scope", withKey("POST", "/v2/models/iris/infer", "k-read", infer, ""), "", 403, "forbidden"},
		{"no admin scope", withKey("POST", "/v2/repository/models/iris/unload", "k-all", "", ""), "", 403, "forbidden"},
		{"a body over MAX_REQUEST_BYTES", withKey("POST", "/v2/models/iris/infer", "k-all", `{"inputs":[],"id":"`+strings.Repeat("x", 2000)+`"}`, ""), "", 413, "payload_too_large"},
		{"a body on a GET", withKey("GET", "/v2/models/iris", "k-all", `{}`, ""), "", 413, "payload_too_large"},
		{"a Content-Type the protocol does not send", withKey("POST", "/v2/models/iris/infer", "k-all", infer, "text/plain"), "", 415, "unsupported_media_type"},
		{"a Content-Encoding the server does not decode", brotli, "", 415, "unsupported_media_type"},
		{"a throttled key", withKey("GET", "/v2/models/iris", "k-throttled", "", ""), "", 429, "auth_throttled"},
		{"a version that failed to load", withKey("POST", "/v2/models/broken/versions/v1/infer", "k-all", infer, ""), "", 503, "model_unavailable"},
		{"an unknown model", withKey("GET", "/v2/models/resnet/config", "k-all", "", ""), "", 404, "model_not_found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var status int
			var e struct{ code, msg string }
			if tt.raw != "" {
				resp := rawExchange(t, addr, tt.raw, false, true)
				oe := resp.OIPError(t)
				status, e.code, e.msg = resp.Status, oe.Code, oe.Error
			} else {
				resp := s.c.Do(tt.req)
				if resp.Status != tt.status {
					t.Fatalf("status %d, want %d: %s", resp.Status, tt.status, resp.Body)
				}
				oe := resp.OIPError(t)
				status, e.code, e.msg = resp.Status, oe.Code, oe.Error
				if status == http.StatusTooManyRequests && resp.Header.Get("Retry-After") == "" {
					t.Error("a 429 without Retry-After")
				}
			}
			if status != tt.status || e.code != tt.code {
				t.Errorf("%d %s (%s), want %d %s", status, e.code, e.msg, tt.status, tt.code)
			}
		})
	}
}

// stat reads the count of one of a version's inference statistics.
func stat(t *testing.T, s *started, model, version, which string) float64 {
	t.Helper()
	var st struct {
		ModelStats []struct {
			Name           string                             `json:"name"`
			Version        string                             `json:"version"`
			InferenceCount float64                            `json:"inference_count"`
			ExecutionCount float64                            `json:"execution_count"`
			LastInference  float64                            `json:"last_inference"`
			InferenceStats map[string]struct{ Count, Ns int } `json:"inference_stats"`
			BatchStats     []struct {
				BatchSize int `json:"batch_size"`
			} `json:"batch_stats"`
		} `json:"model_stats"`
	}
	s.c.Get("/v2/models/"+model+"/versions/"+version+"/stats", "k-read").JSON(t, &st)
	if len(st.ModelStats) != 1 || st.ModelStats[0].Name != model || st.ModelStats[0].Version != version {
		t.Fatalf("stats of %s %s: %+v", model, version, st)
	}
	m := st.ModelStats[0]
	switch which {
	case "inference_count":
		return m.InferenceCount
	case "execution_count":
		return m.ExecutionCount
	case "last_inference":
		return m.LastInference
	case "batch_sizes":
		return float64(len(m.BatchStats))
	}
	return float64(m.InferenceStats[which].Count)
}

// TestOIPConfigAndStats: the configuration tritonclient reads, and statistics that move
// with traffic: requests, items, model calls and their stages, failures.
func TestOIPConfigAndStats(t *testing.T) {
	s := startOIP(t, nil)
	t.Run("config", func(t *testing.T) {
		for _, tt := range []struct{ path, want string }{
			{"/v2/models/iris/config", `"version":"v1"`},
			{"/v2/models/iris/versions/v2/config", `"output":[{"data_type":"TYPE_FP64","dims":[3],"name":"probabilities"}]`},
			{"/v2/models/diabetes/config", `"input":[{"data_type":"TYPE_FP64","dims":[-1,10],"name":"input"}],"max_batch_size":0,"name":"diabetes","output":[{"data_type":"TYPE_FP64","dims":[-1],"name":"prediction"}]`},
			{"/v2/models/digits/config", `"dynamic_batching":{"max_queue_delay_microseconds":2000,"preferred_batch_size":[128]}`},
			{"/v2/models/digits/versions/v1/config", `"max_batch_size":128`},
			{"/v2/models/echo/config", `"platform":"echo"`},
		} {
			if resp := s.c.Get(tt.path, "k-read"); resp.Status != 200 || !strings.Contains(string(resp.Body), tt.want) {
				t.Errorf("%s: %d %s, want %s", tt.path, resp.Status, resp.Body, tt.want)
			}
		}
		if resp := s.c.Get("/v2/models/broken/versions/v1/config", "k-read"); resp.Status != 503 {
			t.Errorf("a version that failed to load: %d %s", resp.Status, resp.Body)
		}
	})
	t.Run("stats move with traffic", func(t *testing.T) {
		success, items, calls := stat(t, s, "iris", "v1", "success"), stat(t, s, "iris", "v1", "inference_count"), stat(t, s, "iris", "v1", "execution_count")
		input, fail := stat(t, s, "iris", "v1", "compute_input"), stat(t, s, "iris", "v1", "fail")
		for range 3 {
			oipPost(s, "/v2/models/iris/versions/v1/infer", "k-all", `{"inputs":[{"name":"input","shape":[2,4],"datatype":"FP32","data":[5.1,3.5,1.4,0.2,6.7,3.0,5.2,2.3]}]}`)
		}
		s.c.Post("/predict", "k-all", `{"model":"iris","version":"v1","data":[5.1,3.5,1.4,0.2]}`)
		s.c.Post("/predict", "k-all", `{"model":"iris","version":"v1","data":[1e39,3.5,1.4,0.2]}`) // invalid: fails in preprocess
		got := []struct {
			name      string
			got, want float64
		}{
			{"success", stat(t, s, "iris", "v1", "success") - success, 4},
			{"inference_count", stat(t, s, "iris", "v1", "inference_count") - items, 7},
			// iris v1's one preprocess step is to_tensor, which a tensor call has done.
			{"compute_input (preprocess: /predict only)", stat(t, s, "iris", "v1", "compute_input") - input, 2},
			{"fail", stat(t, s, "iris", "v1", "fail") - fail, 1},
		}
		for _, g := range got {
			if g.got != g.want {
				t.Errorf("%s moved by %v, want %v", g.name, g.got, g.want)
			}
		}
		if n := stat(t, s, "iris", "v1", "execution_count") - calls; n < 1 || n > 4 {
			t.Errorf("execution_count moved by %v, want 1 to 4 model calls for 4 requests", n)
		}
		if last := stat(t, s, "iris", "v1", "last_inference"); math.Abs(last-float64(time.Now().UnixMilli())) > 60_000 {
			t.Errorf("last_inference %v ms, now %d", last, time.Now().UnixMilli())
		}
	})
}

// TestOIPRepository: a version copied into the repository loads while traffic runs to
// the model's other versions, and a model unloads while traffic runs to others; no
// request of that traffic fails. The index shows each state, and load brings an
// unloaded model back.
func TestOIPRepository(t *testing.T) {
	models := oipRepo(t)
	s := startOIP(t, map[string]string{"MODELS_DIR": models})

	var failures atomic.Int64
	var sent atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	traffic := func(path, body string) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				resp, err := s.c.TryDo(s.c.NewRequest(http.MethodPost, path, "k-all", body))
				sent.Add(1)
				if err != nil || resp.Status != http.StatusOK {
					failures.Add(1)
					t.Errorf("%s during load/unload: %v %v", path, err, resp)
				}
			}
		}()
	}
	flower := `{"inputs":[{"name":"input","shape":[1,4],"datatype":"FP32","data":[5.1,3.5,1.4,0.2]}]}`
	traffic("/v2/models/iris/versions/v1/infer", flower)
	traffic("/v2/models/iris/infer", flower)
	traffic("/predict", `{"model":"iris","data":[5.1,3.5,1.4,0.2]}`)
	traffic("/predict", `{"model":"iris","version":"v2","data":[5.1,3.5,1.4,0.2]}`)
	traffic("/v2/models/digits/versions/v1/infer", `{"inputs":[{"name":"input","shape":[1,64],"datatype":"FP32","data":[`+strings.TrimSuffix(strings.Repeat("1,", 64), ",")+`]}]}`)

	index := func() map[string]string {
		var idx []struct{ Name, Version, State, Reason string }
		s.c.Post("/v2/repository/index", "k-read", nil).JSON(t, &idx)
		out := map[string]string{}
		for _, e := range idx {
			out[e.Name+" "+e.Version] = e.State
		}
		return out
	}
	testkit.CopyDir(t, filepath.Join(models, "iris", "v1"), filepath.Join(models, "iris", "v3"))
	if got := index()["iris v3"]; got != "UNAVAILABLE" {
		t.Errorf("a version copied in shows %q, want UNAVAILABLE until loaded", got)
	}
	if resp := s.c.Post("/v2/repository/models/iris/load", "k-admin", `{}`); resp.Status != 200 || !strings.Contains(string(resp.Body), `{"name":"iris","state":"READY","version":"v3"}`) {
		t.Fatalf("load: %d %s", resp.Status, resp.Body)
	}
	if resp := oipPost(s, "/v2/models/iris/versions/v3/infer", "k-all", flower); resp.Status != 200 {
		t.Errorf("infer on the loaded v3: %d %s", resp.Status, resp.Body)
	}
	if resp := s.c.Post("/v2/repository/models/diabetes/unload", "k-admin", nil); resp.Status != 200 || !strings.Contains(string(resp.Body), `"state":"UNAVAILABLE"`) {
		t.Fatalf("unload: %d %s", resp.Status, resp.Body)
	}
	testkit.Eventually(t, 2*time.Minute, func() bool { return sent.Load() >= 200 }, "200 requests sent: traffic after the unload too")
	close(stop)
	wg.Wait()
	if failures.Load() != 0 {
		t.Fatalf("%d of %d requests failed while loading and unloading", failures.Load(), sent.Load())
	}

	if resp := s.c.Post("/predict", "k-all", `{"model":"diabetes","data":[48,1,21.6,87,183,103.2,70,3,3.8918,69]}`); resp.Status != 400 || resp.Problem(t).Code != "model_not_found" {
		t.Errorf("predict on the unloaded model: %d %s", resp.Status, resp.Body)
	}
	if got := index(); got["diabetes v1"] != "UNAVAILABLE" || got["iris v3"] != "READY" {
		t.Errorf("index %v", got)
	}
	if resp := s.c.Post("/v2/repository/models/diabetes/load", "k-admin", nil); resp.Status != 200 {
		t.Fatalf("load again: %d %s", resp.Status, resp.Body)
	}
	if resp := s.c.Post("/predict", "k-all", `{"model":"diabetes","data":[48,1,21.6,87,183,103.2,70,3,3.8918,69]}`); resp.Status != 200 {
		t.Errorf("predict after loading it again: %d %s", resp.Status, resp.Body)
	}
	if resp := s.c.Post("/v2/repository/models/nope/load", "k-admin", nil); resp.Status != 404 || resp.OIPError(t).Code != "model_not_found" {
		t.Errorf("load of a model the repository lacks: %d %s", resp.Status, resp.Body)
	}
	if err := os.RemoveAll(filepath.Join(models, "iris", "v3")); err != nil {
		t.Fatal(err)
	}
	if resp := s.c.Post("/v2/repository/models/iris/load", "k-admin", nil); resp.Status != 200 || strings.Contains(string(resp.Body), "v3") {
		t.Errorf("load after deleting v3: %d %s", resp.Status, resp.Body)
	}
}
