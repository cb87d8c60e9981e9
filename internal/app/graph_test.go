package app_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
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

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/inferd/inferd/client"
	pb "github.com/inferd/inferd/gen/inference"
	"github.com/inferd/inferd/internal/apitest"
	"github.com/inferd/inferd/internal/app"
	"github.com/inferd/inferd/internal/pipeline"
	"github.com/inferd/inferd/internal/registry"
	"github.com/inferd/inferd/internal/telemetry"
	"github.com/inferd/inferd/internal/tensor"
	"github.com/inferd/inferd/internal/testkit"
)

// flowers are iris rows the graph tests send: setosa, of which iris v1 is sure (top
// score above 0.9), and two v1 is unsure of, which the cascade sends to v2.
var flowers = [][]float32{{5.1, 3.5, 1.4, 0.2}, {5.9, 3.0, 4.2, 1.5}, {6.7, 3.0, 5.0, 1.7}}

type ranked = []struct {
	Label string  `json:"label"`
	Score float64 `json:"score"`
}

// scores are a ranked answer's scores in class order.
func scores(t *testing.T, r ranked) []float64 {
	t.Helper()
	labels := []string{"setosa", "versicolor", "virginica"}
	out := make([]float64, 3)
	for _, e := range r {
		i := slices.Index(labels, e.Label)
		if i < 0 {
			t.Fatalf("label %q", e.Label)
		}
		out[i] = e.Score
	}
	return out
}

func round(v float64, decimals int) float64 {
	p := math.Pow(10, float64(decimals))
	return math.Round(v*p) / p
}

// predictScores asks /predict for one flower and answers its scores in class order.
func predictScores(t *testing.T, c *apitest.Client, model, version string, row []float32) []float64 {
	t.Helper()
	req := map[string]any{"model": model, "data": row}
	if version != "" {
		req["version"] = version
	}
	body, _ := json.Marshal(req)
	resp := c.Post("/predict", "k-predict", string(body))
	var out struct {
		Result ranked `json:"result"`
	}
	resp.JSON(t, &out)
	if resp.Status != http.StatusOK {
		t.Fatalf("%s %s: %d %s", model, version, resp.Status, resp.Body)
	}
	return scores(t, out.Result)
}

func near(got, want []float64, tol float64) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if math.Abs(got[i]-want[i]) > tol {
			return false
		}
	}
	return true
}

// TestGraphExamplesOverSockets serves models/ and checks the two example graphs over
// a real socket against their members' own answers, fetched separately: iris-ensemble
// is the mean of iris v1's and v2's scores, iris-cascade v1's answer when v1 is sure
// and v2's when it is not, by /predict, /predict/batch, a batch job, /v2 infer and
// gRPC's ModelInfer.
func TestGraphExamplesOverSockets(t *testing.T) {
	s := startOIP(t, nil)
	v1 := make([][]float64, len(flowers))
	v2 := make([][]float64, len(flowers))
	for i, f := range flowers {
		v1[i] = predictScores(t, s.c, "iris", "v1", f)
		v2[i] = predictScores(t, s.c, "iris", "v2", f)
	}
	ensemble := func(i int) []float64 {
		out := make([]float64, 3)
		for k := range out {
			out[k] = round((v1[i][k]+v2[i][k])/2, 5)
		}
		return out
	}
	unsure := func(i int) bool { return slices.Max(v1[i]) < 0.9 }
	if unsure(0) || !unsure(1) {
		t.Fatalf("the flowers must take the cascade's condition both ways: v1 answered %v", v1)
	}
	cascade := func(i int) []float64 {
		if unsure(i) {
			return v2[i]
		}
		return v1[i]
	}

	t.Run("/predict", func(t *testing.T) {
		for i, f := range flowers {
			if got, want := predictScores(t, s.c, "iris-ensemble", "", f), ensemble(i); !near(got, want, 1e-9) {
				t.Errorf("iris-ensemble, flower %d: %v, the members' mean %v", i, got, want)
			}
			if got, want := predictScores(t, s.c, "iris-cascade", "", f), cascade(i); !near(got, want, 1e-9) {
				t.Errorf("iris-cascade, flower %d (v1 unsure: %v): %v, want %v", i, unsure(i), got, want)
			}
		}
	})

	batch := func(t *testing.T, model string, rows [][]float32) [][]float64 {
		t.Helper()
		body, _ := json.Marshal(map[string]any{"model": model, "items": rows})
		resp := s.c.Post("/predict/batch", "k-predict", string(body))
		var out struct {
			Results []ranked `json:"results"`
		}
		resp.JSON(t, &out)
		if resp.Status != http.StatusOK || len(out.Results) != len(rows) {
			t.Fatalf("%s batch: %d %s", model, resp.Status, resp.Body)
		}
		got := make([][]float64, len(rows))
		for i, r := range out.Results {
			got[i] = scores(t, r)
		}
		return got
	}
	t.Run("/predict/batch", func(t *testing.T) {
		for i, got := range batch(t, "iris-ensemble", flowers) {
			if !near(got, ensemble(i), 1e-9) {
				t.Errorf("iris-ensemble item %d: %v, want %v", i, got, ensemble(i))
			}
		}
		// A batch's rows are decided together: the sure flower alone is v1's, beside
		// an unsure one the whole batch is v2's.
		if got := batch(t, "iris-cascade", flowers[:1]); !near(got[0], v1[0], 1e-9) {
			t.Errorf("cascade, sure flower alone: %v, v1 %v", got[0], v1[0])
		}
		for i, got := range batch(t, "iris-cascade", flowers) {
			if !near(got, v2[i], 1e-9) {
				t.Errorf("cascade batch item %d: %v, v2 %v", i, got, v2[i])
			}
		}
	})

	t.Run("a batch job", func(t *testing.T) {
		body, _ := json.Marshal(map[string]any{"model": "iris-ensemble", "items": flowers})
		var sub struct {
			JobID string `json:"job_id"`
		}
		if resp := s.c.Post("/predict/async/batch", "k-predict", string(body)); resp.Status != http.StatusOK {
			t.Fatalf("submit: %d %s", resp.Status, resp.Body)
		} else {
			resp.JSON(t, &sub)
		}
		var rec struct {
			Status  string   `json:"status"`
			Results []ranked `json:"result"`
		}
		s.c.Get("/jobs/"+sub.JobID+"?wait=30", "k-predict").JSON(t, &rec)
		if rec.Status != "succeeded" || len(rec.Results) != len(flowers) {
			t.Fatalf("job: %+v", rec)
		}
		for i, r := range rec.Results {
			if got := scores(t, r); !near(got, ensemble(i), 1e-9) {
				t.Errorf("job item %d: %v, want %v", i, got, ensemble(i))
			}
		}
	})

	var flat []float32
	for _, f := range flowers {
		flat = append(flat, f...)
	}
	infer := func(t *testing.T, path string) []float64 {
		t.Helper()
		data, _ := json.Marshal(flat)
		resp := oipPost(s, path, "k-all", fmt.Sprintf(`{"inputs":[{"name":"input","datatype":"FP32","shape":[%d,4],"data":%s}]}`, len(flowers), data))
		var r oipResponse
		resp.JSON(t, &r)
		if resp.Status != http.StatusOK || len(r.Outputs) != 1 || fmt.Sprint(r.Outputs[0].Shape) != fmt.Sprint([]int{len(flowers), 3}) {
			t.Fatalf("%s: %d %s", path, resp.Status, resp.Body)
		}
		return floats(t, r.Outputs[0].Data)
	}
	// The members' tensor calls, the graph's own.
	m1, m2 := infer(t, "/v2/models/iris/versions/v1/infer"), infer(t, "/v2/models/iris/versions/v2/infer")
	want := make([]float64, len(m1))
	for i := range want {
		want[i] = round((m1[i]+m2[i])/2, 5)
	}
	t.Run("/v2 infer", func(t *testing.T) {
		if got := infer(t, "/v2/models/iris-ensemble/infer"); !near(got, want, 1e-9) {
			t.Errorf("iris-ensemble: %v, the members' mean %v", got, want)
		}
		if got := infer(t, "/v2/models/iris-cascade/infer"); !near(got, m2, 1e-9) {
			t.Errorf("iris-cascade (an unsure row: all v2): %v, v2 %v", got, m2)
		}
		var md struct {
			Platform string `json:"platform"`
			Inputs   []struct {
				Name     string  `json:"name"`
				Datatype string  `json:"datatype"`
				Shape    []int64 `json:"shape"`
			} `json:"inputs"`
		}
		s.c.Get("/v2/models/iris-ensemble", "k-read").JSON(t, &md)
		if md.Platform != "ensemble" || len(md.Inputs) != 1 || md.Inputs[0].Name != "input" || fmt.Sprint(md.Inputs[0].Shape) != "[-1 4]" {
			t.Errorf("metadata %+v", md)
		}
	})
	t.Run("gRPC", func(t *testing.T) {
		c := grpcClient(t, s)
		res, err := c.ModelInfer(withKey(t, "k-all"), &pb.ModelInferRequest{ModelName: "iris-ensemble", Inputs: []*pb.ModelInferRequest_InferInputTensor{
			{Name: "input", Datatype: "FP32", Shape: []int64{int64(len(flowers)), 4}, Contents: &pb.InferTensorContents{Fp32Contents: flat}}}})
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Outputs[0].Contents.GetFp64Contents(); !near(got, want, 1e-9) {
			t.Errorf("iris-ensemble: %v, the members' mean %v", got, want)
		}
	})
}

// flaky is a member that fails on demand, by the first value of a row: -1 an error,
// -2 waits for its request's end (and says what deadline it was given), -3 answers
// the wrong shape; any other row gets [0.2, 0.3, 0.5].
type flaky struct {
	deadlines chan time.Duration
}

func (f *flaky) Predict(ctx context.Context, batch []any) ([]any, error) {
	out := make([]any, len(batch))
	for i, v := range batch {
		row := v.(*tensor.Tensor)
		switch row.At(0) {
		case -1:
			return nil, fmt.Errorf("flaky: told to fail")
		case -2:
			d, ok := ctx.Deadline()
			if !ok {
				f.deadlines <- -1
			} else {
				f.deadlines <- time.Until(d)
			}
			<-ctx.Done()
			return nil, ctx.Err()
		case -3:
			out[i] = tensor.Map{"probabilities": tensor.NewFloat(tensor.Float64, []int64{2}, []float64{0.5, 0.5})}
		default:
			out[i] = tensor.Map{"probabilities": tensor.NewFloat(tensor.Float64, []int64{3}, []float64{0.2, 0.3, 0.5})}
		}
	}
	return out, nil
}

func (f *flaky) Close() error { return nil }

func flakySource(f *flaky) registry.Source {
	in := []pipeline.Tensor{{Name: "input", DType: "float32", Shape: []int64{-1, 4}}}
	out := []pipeline.Tensor{{Name: "probabilities", DType: "float64", Shape: []int64{-1, 3}}}
	return registry.Fixed{{Name: "flaky", Versions: []registry.VersionSpec{{Version: "v1", Loader: registry.LoaderFunc(func(context.Context) (*pipeline.Pipeline, error) {
		return &pipeline.Pipeline{Model: f, Info: pipeline.Info{Inputs: in, Outputs: out, TensorInputs: in, TensorOutputs: out}}, nil
	})}}}}
}

func writeGraph(t *testing.T, dir, name, yaml string) {
	t.Helper()
	vdir := filepath.Join(dir, name, "v1")
	if err := os.MkdirAll(vdir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(vdir, "model.yaml"), []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
}

const flakyGraph = `graph:
  inputs: [{name: input, dtype: float32, shape: [-1, 4]}]
  steps:
    - name: f
      model: flaky
      inputs: {input: request.input}
%s
  outputs: {probabilities: f.probabilities}
`

// TestGraphStepFailures: a failing member fails the request naming the step, or with
// on_error: fallback answers the fallback; an answer of the wrong shape is a failure
// too, never passed on; the request's deadline reaches the member and ends the call.
func TestGraphStepFailures(t *testing.T) {
	dir := t.TempDir()
	testkit.CopyDir(t, repoModels(t), dir)
	writeGraph(t, dir, "g-fail", fmt.Sprintf(flakyGraph, ""))
	writeGraph(t, dir, "g-fallback", fmt.Sprintf(flakyGraph, "      on_error: fallback\n      fallback: {probabilities: [0.1, 0.1, 0.8]}"))
	f := &flaky{deadlines: make(chan time.Duration, 4)}
	s := startAppWith(t, map[string]string{"MODELS_DIR": dir, "RATE_LIMIT_RPS": "0", "API_KEYS": oipKeys}, true,
		app.Options{Logger: slog.New(slog.DiscardHandler), Sources: []registry.Source{flakySource(f)}})

	infer := func(model string, first float32, header ...string) *apitest.Response {
		req := s.c.NewRequest(http.MethodPost, "/v2/models/"+model+"/infer", "k-all",
			fmt.Sprintf(`{"inputs":[{"name":"input","datatype":"FP32","shape":[1,4],"data":[%v,0,0,0]}]}`, first))
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		return s.c.Do(req)
	}
	data := func(t *testing.T, resp *apitest.Response) []float64 {
		t.Helper()
		var r oipResponse
		resp.JSON(t, &r)
		if resp.Status != http.StatusOK || len(r.Outputs) != 1 {
			t.Fatalf("%d %s", resp.Status, resp.Body)
		}
		return floats(t, r.Outputs[0].Data)
	}
	for _, tc := range []struct {
		name  string
		first float32
	}{{"the member fails", -1}, {"the member answers the wrong shape", -3}} {
		t.Run(tc.name, func(t *testing.T) {
			resp := infer("g-fail", tc.first)
			if e := resp.OIPError(t); resp.Status != http.StatusInternalServerError || !strings.Contains(e.Error, `graph step "f"`) {
				t.Errorf("fail policy: %d %s, want 500 naming step f", resp.Status, resp.Body)
			}
			p := s.c.Post("/predict", "k-predict", fmt.Sprintf(`{"model":"g-fail","data":[%v,0,0,0]}`, tc.first))
			if p.Status != http.StatusInternalServerError || !strings.Contains(p.Problem(t).Detail, `graph step "f"`) {
				t.Errorf("fail policy, /predict: %d %s", p.Status, p.Body)
			}
			if got := data(t, infer("g-fallback", tc.first)); !near(got, []float64{0.1, 0.1, 0.8}, 1e-9) {
				t.Errorf("fallback policy: %v, want the fallback", got)
			}
		})
	}
	t.Run("a member that answers", func(t *testing.T) {
		for _, model := range []string{"g-fail", "g-fallback"} {
			if got := data(t, infer(model, 1)); !near(got, []float64{0.2, 0.3, 0.5}, 1e-9) {
				t.Errorf("%s: %v, want the member's answer", model, got)
			}
		}
	})
	t.Run("the deadline reaches the member", func(t *testing.T) {
		for _, model := range []string{"g-fail", "g-fallback"} {
			start := time.Now()
			resp := infer(model, -2, "Request-Timeout", "0.5")
			if resp.Status != http.StatusServiceUnavailable || resp.OIPError(t).Code != "request_cancelled" {
				t.Errorf("%s: %d %s, want 503 request_cancelled (a fallback never answers an ended request)", model, resp.Status, resp.Body)
			}
			if d := <-f.deadlines; d < 0 || d > 500*time.Millisecond {
				t.Errorf("%s: the member's call had %v left of a 0.5 s Request-Timeout (-1: no deadline)", model, d)
			}
			if took := time.Since(start); took > 20*time.Second {
				t.Errorf("%s: answered after %v", model, took)
			}
		}
	})
}

// TestGraphLoadErrors: each fault of a graph fails that graph when it loads, with
// the file and field, and the rest of the repository serves.
func TestGraphLoadErrors(t *testing.T) {
	dir := t.TempDir()
	testkit.CopyDir(t, repoModels(t), dir)
	const in = "  inputs: [{name: input, dtype: float32, shape: [-1, 4]}]\n"
	cases := []struct {
		name, yaml, field, want string
	}{
		{"g-cycle", "graph:\n" + in + `  steps:
    - {name: a, model: iris, version: v1, inputs: {input: b.logits}}
    - {name: b, model: iris, version: v1, inputs: {input: a.logits}}
  outputs: {y: a.logits}
`, "graph.steps[", "cycle"},
		{"g-no-model", "graph:\n" + in + "  steps:\n    - {name: a, model: nosuch, inputs: {input: request.input}}\n  outputs: {y: a.out}\n", "graph.steps[0].model", "nosuch"},
		{"g-no-version", "graph:\n" + in + "  steps:\n    - {name: a, model: iris, version: v9, inputs: {input: request.input}}\n  outputs: {y: a.logits}\n", "graph.steps[0].version", "v9"},
		{"g-dtype", "graph:\n  inputs: [{name: input, dtype: float64, shape: [-1, 4]}]\n  steps:\n    - {name: a, model: iris, version: v1, inputs: {input: request.input}}\n  outputs: {y: a.logits}\n", "graph.steps[0].inputs.input", "float64"},
		{"g-shape", "graph:\n  inputs: [{name: input, dtype: float32, shape: [-1, 3]}]\n  steps:\n    - {name: a, model: iris, version: v1, inputs: {input: request.input}}\n  outputs: {y: a.logits}\n", "graph.steps[0].inputs.input", "shape"},
		{"g-no-output", "graph:\n" + in + "  steps:\n    - {name: a, model: iris, version: v1, inputs: {input: request.input}}\n  outputs: {y: a.nosuch}\n", "graph.outputs.y", `no output "nosuch"`},
		{"g-no-source", "graph:\n" + in + "  steps:\n    - {name: a, model: iris, version: v1, inputs: {input: z.y}}\n  outputs: {y: a.logits}\n", "graph.steps[0].inputs.input", "names no step or join"},
		{"g-unfed", "graph:\n" + in + "  steps:\n    - {name: a, model: iris, version: v1, inputs: {}}\n  outputs: {y: a.logits}\n", "graph.steps[0].inputs", "map each of the model's inputs"},
		{"g-join", "graph:\n" + in + `  steps:
    - {name: a, model: iris, version: v1, inputs: {input: request.input}}
  joins:
    - {name: m, mean: [a.logits, request.input]}
  outputs: {y: m}
`, "graph.joins[0].mean[1]", "share a dtype"},
		{"g-absent", "graph:\n" + in + `  steps:
    - {name: a, model: iris, version: v1, inputs: {input: request.input}, when: {source: request.input, max: {below: 1}}}
  outputs: {y: a.logits}
`, "graph.outputs.y", "may be absent"},
		{"g-fallback", "graph:\n" + in + `  steps:
    - {name: a, model: iris, version: v1, inputs: {input: request.input}, on_error: fallback, fallback: {logits: [1, 2]}}
  outputs: {y: a.logits}
`, "graph.steps[0].fallback.logits", "shape"},
		{"g-echo", "graph:\n" + in + "  steps:\n    - {name: a, model: echo, inputs: {input: request.input}}\n  outputs: {y: a.input}\n", "graph.steps[0].model", "declares no tensors"},
		{"g-of-graph", "graph:\n" + in + "  steps:\n    - {name: a, model: iris-ensemble, inputs: {input: request.input}}\n  outputs: {y: a.probabilities}\n", "graph.steps[0]", "is a graph"},
		{"g-backend", "backend: onnx\ngraph:\n" + in + "  steps:\n    - {name: a, model: iris, version: v1, inputs: {input: request.input}}\n  outputs: {y: a.logits}\n", "backend", "a graph version takes none"},
		{"g-two-inputs", "graph:\n  inputs: [{name: input, dtype: float32, shape: [-1, 4]}, {name: w, dtype: float32, shape: [-1, 4]}]\n  steps:\n    - {name: a, model: iris, version: v1, inputs: {input: request.input}}\n  outputs: {y: a.logits}\n", "graph.inputs", "one input"},
		{"g-syntax", "graph:\n  inputs: nope\n", "graph.inputs", ""},
	}
	for _, tc := range cases {
		writeGraph(t, dir, tc.name, tc.yaml)
	}
	s := startApp(t, map[string]string{"MODELS_DIR": dir, "RATE_LIMIT_RPS": "0", "API_KEYS": oipKeys, "READY_ALLOW_FAILED": "true"}, true)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var meta struct {
				Status string
				Error  *string
			}
			s.c.Get("/models/"+tc.name+"/v1", "k-read").JSON(t, &meta)
			if meta.Status != "failed" || meta.Error == nil {
				t.Fatalf("%+v, want failed with a reason", meta)
			}
			file := filepath.Join(tc.name, "v1", "model.yaml")
			if e := *meta.Error; !strings.Contains(e, file) || !strings.Contains(e, tc.field) || !strings.Contains(e, tc.want) {
				t.Errorf("error %q, want %s, %q and %q", e, file, tc.field, tc.want)
			}
			resp := s.c.Post("/predict", "k-predict", `{"model":"`+tc.name+`","data":[5.1,3.5,1.4,0.2]}`)
			if resp.Status != http.StatusServiceUnavailable || resp.Problem(t).Code != "model_unavailable" {
				t.Errorf("/predict: %d %s, want 503 model_unavailable", resp.Status, resp.Body)
			}
		})
	}
	if resp := s.c.Post("/predict", "k-predict", `{"model":"iris-ensemble","data":[5.1,3.5,1.4,0.2]}`); resp.Status != http.StatusOK {
		t.Errorf("the good graph beside the broken ones: %d %s", resp.Status, resp.Body)
	}
}

// TestGraphMembersChange: while traffic runs, a member reloaded is what the graph
// calls next without the graph reloading; a member removed makes the graph report
// failed, naming it, and back again it serves; the other models answer 200 throughout.
func TestGraphMembersChange(t *testing.T) {
	dir := t.TempDir()
	testkit.CopyDir(t, repoModels(t), dir)
	s := startApp(t, map[string]string{"MODELS_DIR": dir, "RATE_LIMIT_RPS": "0", "API_KEYS": oipKeys}, true)

	var stop atomic.Bool
	var wg sync.WaitGroup
	var mu sync.Mutex
	bad := map[string]int{}
	graphOK := 0
	for _, model := range []string{"iris-ensemble", "iris", "wine", "diabetes"} {
		data := `[5.1,3.5,1.4,0.2]`
		switch model {
		case "wine":
			data = `[13.2,1.78,2.14,11.2,100,2.65,2.76,0.26,1.28,4.38,1.05,3.4,1050]`
		case "diabetes":
			data = `[0.03,0.05,0.06,0.02,-0.04,-0.03,-0.04,0,0.02,-0.02]`
		}
		wg.Go(func() {
			for !stop.Load() {
				resp, err := s.c.TryDo(s.c.NewRequest(http.MethodPost, "/predict", "k-predict", `{"model":"`+model+`","data":`+data+`}`))
				mu.Lock()
				switch {
				case err != nil:
					bad[model+": "+err.Error()]++
				case resp.Status == http.StatusOK && model == "iris-ensemble":
					graphOK++
				case resp.Status != http.StatusOK && model != "iris-ensemble":
					bad[fmt.Sprintf("%s: %d %.200s", model, resp.Status, resp.Body)]++
				}
				mu.Unlock()
			}
		})
	}
	status := func() (string, string) {
		var meta struct {
			Status string
			Error  *string
		}
		s.c.Get("/models/iris-ensemble/v1", "k-read").JSON(t, &meta)
		if meta.Error == nil {
			return meta.Status, ""
		}
		return meta.Status, *meta.Error
	}

	t.Run("a member reloaded", func(t *testing.T) {
		// v2 rounds to 2 decimals now: the graph's next answers are the mean with
		// what v2 answers after its reload, though the graph itself never reloaded.
		v2 := filepath.Join(dir, "iris", "v2", "model.yaml")
		old, err := os.ReadFile(v2)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(v2, []byte(strings.Replace(string(old), "decimals: 4", "decimals: 2", 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = os.WriteFile(v2, old, 0o644) })
		for range 3 {
			if resp := s.c.Post("/admin/models/iris/v2/reload", "k-admin", nil); resp.Status != http.StatusOK {
				t.Fatalf("reload: %d %s", resp.Status, resp.Body)
			}
		}
		if st, e := status(); st != "ready" {
			t.Errorf("after the member's reloads the graph is %s: %s", st, e)
		}
		f := flowers[1]
		a, b := predictScores(t, s.c, "iris", "v1", f), predictScores(t, s.c, "iris", "v2", f)
		if b[1] != round(b[1], 2) {
			t.Fatalf("iris v2 answers %v after its reload, not rounded to 2 decimals", b)
		}
		want := make([]float64, 3)
		for k := range want {
			want[k] = round((a[k]+b[k])/2, 5)
		}
		if got := predictScores(t, s.c, "iris-ensemble", "", f); !near(got, want, 1e-9) {
			t.Errorf("iris-ensemble after iris v2's reload: %v, the members' mean %v", got, want)
		}
	})
	t.Run("a member removed and back", func(t *testing.T) {
		v2 := filepath.Join(dir, "iris", "v2")
		aside := filepath.Join(t.TempDir(), "v2")
		if err := os.Rename(v2, aside); err != nil {
			t.Fatal(err)
		}
		if resp := s.c.Post("/admin/models/iris/v2/reload", "k-admin", nil); resp.Status != http.StatusNotFound {
			t.Fatalf("reload of the removed version: %d %s", resp.Status, resp.Body)
		}
		st, e := status()
		if st != "failed" || !strings.Contains(e, "graph.steps[1].version") || !strings.Contains(e, "v2") {
			t.Errorf("with iris v2 gone the graph is %s (%q), want failed naming the step's version", st, e)
		}
		resp := s.c.Post("/predict", "k-predict", `{"model":"iris-ensemble","data":[5.1,3.5,1.4,0.2]}`)
		if resp.Status != http.StatusServiceUnavailable || resp.Problem(t).Code != "model_unavailable" {
			t.Errorf("the failed graph answers %d %s, want 503 model_unavailable", resp.Status, resp.Body)
		}
		testkit.CopyDir(t, aside, v2)
		if resp := s.c.Post("/admin/models/iris/v2/reload", "k-admin", nil); resp.Status != http.StatusOK {
			t.Fatalf("reload of the restored version: %d %s", resp.Status, resp.Body)
		}
		if st, e := status(); st != "ready" {
			t.Errorf("with iris v2 back the graph is %s: %s", st, e)
		}
	})
	stop.Store(true)
	wg.Wait()
	if len(bad) > 0 {
		t.Errorf("other models answered other than 200 while members changed: %v", bad)
	}
	if graphOK == 0 {
		t.Error("the graph answered no request while it served")
	}
}

// TestGraphTracesAndMetrics: each step a graph runs is a span under the graph's model
// stage, named by the step, with the member's own spans under it; a skipped step has
// none. inferd_graph_step_duration_seconds counts every step by its outcome.
func TestGraphTracesAndMetrics(t *testing.T) {
	a := startTraced(t, map[string]string{"MODELS_DIR": repoModels(t), "RATE_LIMIT_RPS": "0"})
	predict := func(row string) tracetest.SpanStubs {
		t.Helper()
		resp := a.c.Post("/predict", "dev-key", `{"model":"iris-cascade","data":`+row+`}`)
		if resp.Status != http.StatusOK {
			t.Fatalf("%d %s", resp.Status, resp.Body)
		}
		_, spans := a.traceOf(t, resp.Header.Get("X-Request-Id"))
		return spans
	}
	steps := func(spans tracetest.SpanStubs) []string {
		var out []string
		for _, s := range spans {
			if s.Name == telemetry.SpanGraphStep {
				v, _ := attrOf(s, telemetry.GraphStep)
				out = append(out, v.AsString())
			}
		}
		slices.Sort(out)
		return out
	}

	// The sure flower: the small model alone.
	spans := predict(`[5.1,3.5,1.4,0.2]`)
	model := one(t, spans, "model", server(t, spans))
	if got := steps(spans); !slices.Equal(got, []string{"small"}) {
		t.Errorf("steps traced %v, want [small]:\n%s", got, tree(spans))
	}
	small := one(t, spans, telemetry.SpanGraphStep, model)
	wantAttrs(t, small, map[attribute.Key]any{telemetry.GraphStep: "small", telemetry.Model: "iris", telemetry.RequestedVersion: "v1"})
	wantAttrs(t, one(t, spans, telemetry.SpanRoute, small), map[attribute.Key]any{telemetry.Model: "iris", telemetry.Version: "v1"})
	one(t, spans, "model", small) // the member's own model stage

	// An unsure one: both, side by side under the graph's model stage.
	spans = predict(`[5.9,3.0,4.2,1.5]`)
	if got := steps(spans); !slices.Equal(got, []string{"large", "small"}) {
		t.Errorf("steps traced %v, want [large small]:\n%s", got, tree(spans))
	}

	body := string(a.c.Get("/metrics", "").Body)
	for _, want := range []string{
		`inferd_graph_step_duration_seconds_count{model="iris-cascade",outcome="answered",step="small",version="v1"} 2`,
		`inferd_graph_step_duration_seconds_count{model="iris-cascade",outcome="answered",step="large",version="v1"} 1`,
		`inferd_graph_step_duration_seconds_count{model="iris-cascade",outcome="skipped",step="large",version="v1"} 1`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}

// TestGraphExplain: an admin key gets a prediction with every step of the graph,
// its outcome and the tensors between steps; the tensors are the members' own
// answers. Other keys are refused; a version that is no graph has no steps.
func TestGraphExplain(t *testing.T) {
	s := startOIP(t, nil)
	type explained struct {
		Model   string `json:"model"`
		Version string `json:"version"`
		Result  ranked `json:"result"`
		Steps   []struct {
			Step    string  `json:"step"`
			Model   string  `json:"model"`
			Version *string `json:"version"`
			Outcome string  `json:"outcome"`
			Inputs  []struct {
				Name  string          `json:"name"`
				Shape []int64         `json:"shape"`
				Data  json.RawMessage `json:"data"`
			} `json:"inputs"`
			Outputs []struct {
				Name     string          `json:"name"`
				Datatype string          `json:"datatype"`
				Data     json.RawMessage `json:"data"`
			} `json:"outputs"`
		} `json:"steps"`
	}
	explain := func(t *testing.T, path, key string, row []float32) (*apitest.Response, explained) {
		t.Helper()
		body, _ := json.Marshal(map[string]any{"data": row})
		resp := s.c.Post(path, key, string(body))
		var out explained
		if resp.Status == http.StatusOK {
			resp.JSON(t, &out)
		}
		return resp, out
	}
	v1 := predictScores(t, s.c, "iris", "v1", flowers[1])
	v2 := predictScores(t, s.c, "iris", "v2", flowers[1])

	resp, out := explain(t, "/admin/models/iris-cascade/v1/explain", "k-admin", flowers[1])
	if resp.Status != http.StatusOK || len(out.Steps) != 2 {
		t.Fatalf("%d %s", resp.Status, resp.Body)
	}
	if got := scores(t, out.Result); !near(got, v2, 1e-9) {
		t.Errorf("result %v, iris v2's %v", got, v2)
	}
	for _, st := range out.Steps {
		if st.Outcome != "answered" || st.Model != "iris" || len(st.Inputs) != 1 || len(st.Outputs) != 1 {
			t.Errorf("step %+v", st)
			continue
		}
		var got [][]float64
		if err := json.Unmarshal(st.Outputs[0].Data, &got); err != nil || len(got) != 1 {
			t.Fatalf("step %s's output %s: %v", st.Step, st.Outputs[0].Data, err)
		}
		want := map[string][]float64{"small": v1, "large": v2}[st.Step]
		if !near(got[0], want, 1e-9) {
			t.Errorf("step %s passed on %v, its member answers %v", st.Step, got[0], want)
		}
		if fmt.Sprint(st.Inputs[0].Shape) != "[1 4]" || string(st.Inputs[0].Data) != "[[5.9,3,4.2,1.5]]" {
			t.Errorf("step %s was given %s %v", st.Step, st.Inputs[0].Data, st.Inputs[0].Shape)
		}
	}

	resp, out = explain(t, "/admin/models/iris-cascade/v1/explain", "k-admin", flowers[0])
	outcomes := map[string]string{}
	for _, st := range out.Steps {
		outcomes[st.Step] = st.Outcome
	}
	if resp.Status != http.StatusOK || outcomes["small"] != "answered" || outcomes["large"] != "skipped" {
		t.Errorf("the sure flower: %d %s", resp.Status, resp.Body)
	}

	if resp, out := explain(t, "/admin/models/iris/v1/explain", "k-admin", flowers[0]); resp.Status != http.StatusOK || len(out.Steps) != 0 || out.Model != "iris" {
		t.Errorf("a version that is no graph: %d %s", resp.Status, resp.Body)
	}
	if resp, _ := explain(t, "/admin/models/iris-cascade/v1/explain", "k-predict", flowers[0]); resp.Status != http.StatusForbidden {
		t.Errorf("a key without admin: %d %s", resp.Status, resp.Body)
	}
	if resp, _ := explain(t, "/admin/models/nosuch/v1/explain", "k-admin", flowers[0]); resp.Status != http.StatusNotFound || resp.Problem(t).Code != "model_not_found" {
		t.Errorf("an unknown model: %d %s", resp.Status, resp.Body)
	}

	// The Go SDK's Explain.
	c, err := client.New(s.url, client.WithAPIKey("k-admin"), client.WithHTTPClient(&http.Client{Transport: apitest.Transport(t, nil)}))
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.Explain(t.Context(), "iris-cascade", "v1", flowers[1])
	if err != nil || len(got.Steps) != 2 || got.Model != "iris-cascade" {
		t.Fatalf("client.Explain: %+v, %v", got, err)
	}
	for _, st := range got.Steps {
		if st.Outcome != client.ExplainedStepOutcome("answered") || len(st.Outputs) != 1 || st.Outputs[0].Datatype != "FP64" {
			t.Errorf("client.Explain step %+v", st)
		}
	}
}

// slowMember is a member with dynamic batching whose calls take 20 ms, so that the
// steps of concurrent graph requests queue in its batcher and share calls.
type slowMember struct{}

func (slowMember) Predict(_ context.Context, batch []any) ([]any, error) {
	time.Sleep(20 * time.Millisecond) // the member's compute, which concurrent calls queue behind
	out := make([]any, len(batch))
	for i, v := range batch {
		out[i] = tensor.Map{"probabilities": tensor.NewFloat(tensor.Float64, []int64{3}, []float64{v.(*tensor.Tensor).At(0), 0, 0})}
	}
	return out, nil
}

func (slowMember) Close() error { return nil }

// TestGraphBatchingAndRouting: concurrent requests to a graph share its member's
// dynamic batcher (inferd_batch_size sees the member's calls of more than one item),
// each still answered its own; a graph model's routing.yaml splits requests that name
// no version between its graph versions like any model's.
func TestGraphBatchingAndRouting(t *testing.T) {
	dir := t.TempDir()
	testkit.CopyDir(t, repoModels(t), dir)
	writeGraph(t, dir, "g-slow", `graph:
  inputs: [{name: input, dtype: float32, shape: [-1, 4]}]
  steps: [{name: s, model: slowt, inputs: {input: request.input}}]
  outputs: {probabilities: s.probabilities}
`)
	for v, yaml := range map[string]string{
		"v1": "graph:\n  inputs: [{name: input, dtype: float32, shape: [-1, 4]}]\n  steps: [{name: a, model: iris, version: v1, inputs: {input: request.input}}]\n  outputs: {p: a.logits}\n",
		"v2": "graph:\n  inputs: [{name: input, dtype: float32, shape: [-1, 4]}]\n  steps: [{name: b, model: iris, version: v2, inputs: {input: request.input}}]\n  outputs: {p: b.probabilities}\n",
	} {
		vdir := filepath.Join(dir, "g-route", v)
		if err := os.MkdirAll(vdir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(vdir, "model.yaml"), []byte(yaml), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "g-route", "routing.yaml"), []byte("strategy: weighted\nweights: {v1: 50, v2: 50}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	in := []pipeline.Tensor{{Name: "input", DType: "float32", Shape: []int64{-1, 4}}}
	out := []pipeline.Tensor{{Name: "probabilities", DType: "float64", Shape: []int64{-1, 3}}}
	slow := registry.Fixed{{Name: "slowt", Versions: []registry.VersionSpec{{Version: "v1", Loader: registry.LoaderFunc(func(context.Context) (*pipeline.Pipeline, error) {
		return &pipeline.Pipeline{Model: slowMember{}, Info: pipeline.Info{Inputs: in, Outputs: out, TensorInputs: in, TensorOutputs: out, MaxBatchSize: 16},
			Batching: pipeline.Batching{Enabled: true, MaxSize: 16, MaxQueueDelay: time.Millisecond, MaxCalls: 1}}, nil
	})}}}}
	s := startAppWith(t, map[string]string{"MODELS_DIR": dir, "RATE_LIMIT_RPS": "0"}, true,
		app.Options{Logger: slog.New(slog.DiscardHandler), Sources: []registry.Source{slow}})

	t.Run("a member's dynamic batcher", func(t *testing.T) {
		for range 5 {
			codes, got := wave(t, s, 16, func(i int) string { return fmt.Sprintf(`{"model":"g-slow","data":[%d,0,0,0]}`, i) })
			for i, body := range got {
				if codes[i] != http.StatusOK || !strings.Contains(body, fmt.Sprintf(`"probabilities":[%d,0,0]`, i)) {
					t.Errorf("client %d got %d %s", i, codes[i], body)
				}
			}
			if count, ones, _ := histogram(t, s, "inferd_batch_size", "slowt", "1"); count > ones {
				return
			}
		}
		t.Error("in five waves of 16 concurrent graph requests, the member's batcher never coalesced two steps")
	})
	t.Run("routing between graph versions", func(t *testing.T) {
		seen := map[string]int{}
		for range 40 {
			resp := s.c.Post("/predict", "dev-key", `{"model":"g-route","data":[5.1,3.5,1.4,0.2]}`)
			if resp.Status != http.StatusOK {
				t.Fatalf("%d %s", resp.Status, resp.Body)
			}
			seen[resp.Header.Get("X-Model-Version")]++
		}
		if seen["v1"] == 0 || seen["v2"] == 0 {
			t.Errorf("40 requests without a version went %v; the 50/50 rule sends them to both", seen)
		}
	})
}
