package httpapi_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/inferd/inferd/internal/backend"
	"github.com/inferd/inferd/internal/backend/onnx"
	"github.com/inferd/inferd/internal/backend/onnx/onnxtest"
	"github.com/inferd/inferd/internal/repository"
	"github.com/inferd/inferd/internal/testkit"
)

// irisHarness serves the example repository's models (iris through ONNX Runtime) beside
// echo and a model that fails to run.
func irisHarness(t *testing.T) *harness {
	t.Helper()
	rt := onnxtest.Runtime(t)
	return newHarness(t, func(s *setup) {
		s.sources = append(s.sources, repository.New(repository.Options{Dir: "../../models", Backends: backend.Catalogue{onnx.NewBackend(rt)}}),
			testModel("broken", failing))
		s.opts.MaxRequestBytes = 1 << 20
	})
}

type itemError struct {
	Index  int    `json:"index"`
	Status int    `json:"status"`
	Code   string `json:"code"`
	Detail string `json:"detail"`
}

type batchAnswer struct {
	Model      string            `json:"model"`
	Version    string            `json:"version"`
	Results    []json.RawMessage `json:"results"`
	ItemErrors []itemError       `json:"item_errors"`
}

// Flowers of iris v1, and items it refuses, with the detail it refuses each with.
const (
	setosa    = `[5.1,3.5,1.4,0.2]`
	virginica = `{"sepal_length":6.7,"sepal_width":3.0,"petal_length":5.2,"petal_width":2.3}`
	short     = `[5.1,3.5,1.4]`
	shortWhy  = `expected 4 numbers, got 3`
	noWidth   = `{"sepal_length":6.7,"petal_length":5.2,"petal_width":2.3}`
	noWhy     = `missing the feature "sepal_width" (features: sepal_length, sepal_width, petal_length, petal_width)`
)

func items(its ...string) string { return "[" + strings.Join(its, ",") + "]" }

// TestPredictBatchOnError: by default one refused item fails the batch, 400 naming it;
// with on_error continue the batch answers 200 with every good item's result, the
// result it gets alone, null for each refused one, and item_errors saying which and
// why; what is no item's fault fails the whole batch either way. Every answer is
// validated against the contract.
func TestPredictBatchOnError(t *testing.T) {
	h := irisHarness(t)
	alone := func(item string) json.RawMessage {
		t.Helper()
		resp := h.c.Post("/predict", keyPredict, `{"model":"iris","version":"v1","data":`+item+`}`)
		var p struct {
			Result json.RawMessage `json:"result"`
		}
		resp.JSON(t, &p)
		return p.Result
	}
	good := map[string]json.RawMessage{setosa: alone(setosa), virginica: alone(virginica)}
	type want struct {
		status int
		code   string // of a problem
		detail string
		// the answer of a 200: per item its result (good[item]) or its error
		items  []string
		errors []itemError
	}
	tests := []struct {
		name, contentType, body string
		want                    want
	}{
		{"by default, one refused item fails the batch", "", `{"model":"iris","version":"v1","items":` + items(setosa, short, virginica) + `}`,
			want{status: 400, code: "invalid_input", detail: "items[1]: " + shortWhy}},
		{"fail, said", "", `{"model":"iris","version":"v1","on_error":"fail","items":` + items(setosa, virginica, noWidth) + `}`,
			want{status: 400, code: "invalid_input", detail: "items[2]: " + noWhy}},
		{"continue, one refused among good ones", "", `{"model":"iris","version":"v1","on_error":"continue","items":` + items(setosa, short, virginica) + `}`,
			want{status: 200, items: []string{setosa, "", virginica}, errors: []itemError{{1, 400, "invalid_input", "items[1]: " + shortWhy}}}},
		{"continue, refused items of several kinds", "", `{"model":"iris","version":"v1","on_error":"continue","items":` + items(noWidth, setosa, `"a flower"`, virginica, short) + `}`,
			want{status: 200, items: []string{"", setosa, "", virginica, ""}, errors: []itemError{
				{0, 400, "invalid_input", "items[0]: " + noWhy},
				{2, 400, "invalid_input", "items[2]: expected 4 numbers or an object of features (sepal_length, sepal_width, petal_length, petal_width), got a string"},
				{4, 400, "invalid_input", "items[4]: " + shortWhy}}}},
		{"continue, every item refused", "", `{"model":"iris","version":"v1","on_error":"continue","items":` + items(short, noWidth) + `}`,
			want{status: 200, items: []string{"", ""}, errors: []itemError{{0, 400, "invalid_input", "items[0]: " + shortWhy}, {1, 400, "invalid_input", "items[1]: " + noWhy}}}},
		{"continue, no item refused", "", `{"model":"iris","version":"v1","on_error":"continue","items":` + items(setosa, virginica) + `}`,
			want{status: 200, items: []string{setosa, virginica}}},
		{"continue, read by the general decoder", "", `{"model":"iris","version":"v1","on_\u0065rror":"continue","items":` + items(short, setosa) + `}`,
			want{status: 200, items: []string{"", setosa}, errors: []itemError{{0, 400, "invalid_input", "items[0]: " + shortWhy}}}},
		{"continue, read by the contract's validator", "application/json; charset=utf-8", `{"model":"iris","version":"v1","on_error":"continue","items":` + items(setosa, short) + `}`,
			want{status: 200, items: []string{setosa, ""}, errors: []itemError{{1, 400, "invalid_input", "items[1]: " + shortWhy}}}},
		{"continue, an unknown model", "", `{"model":"nope","on_error":"continue","items":[1]}`,
			want{status: 400, code: "model_not_found", detail: `"nope"`}},
		{"continue, a model that fails to run", "", `{"model":"broken","on_error":"continue","items":[1,2]}`,
			want{status: 500, code: "execution_error", detail: "boom"}},
		{"another on_error", "", `{"model":"iris","on_error":"skip","items":[1]}`,
			want{status: 400, code: "invalid_request", detail: "on_error"}},
		{"on_error of a single prediction", "", `{"model":"iris","on_error":"continue","data":` + setosa + `}`,
			want{status: 400, code: "invalid_request", detail: "on_error"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := "/predict/batch"
			if strings.Contains(tt.body, `"data"`) {
				path = "/predict"
			}
			req := h.c.NewRequest(http.MethodPost, path, keyPredict, tt.body)
			if tt.contentType != "" {
				req.Header.Set("Content-Type", tt.contentType)
			}
			resp := h.c.Do(req)
			if resp.Status != tt.want.status {
				t.Fatalf("status %d, want %d: %s", resp.Status, tt.want.status, resp.Body)
			}
			if tt.want.status != http.StatusOK {
				if p := resp.Problem(t); p.Code != tt.want.code || !strings.Contains(p.Detail, tt.want.detail) {
					t.Fatalf("problem %s %q, want %s with %q", p.Code, p.Detail, tt.want.code, tt.want.detail)
				}
				return
			}
			var got batchAnswer
			resp.JSON(t, &got)
			if got.Version != "v1" || resp.Header.Get("X-Model-Version") != "v1" {
				t.Errorf("version %q, X-Model-Version %q", got.Version, resp.Header.Get("X-Model-Version"))
			}
			if len(got.Results) != len(tt.want.items) {
				t.Fatalf("%d results for %d items", len(got.Results), len(tt.want.items))
			}
			for i, item := range tt.want.items {
				want := json.RawMessage("null")
				if item != "" {
					want = good[item]
				}
				if !bytes.Equal(got.Results[i], want) {
					t.Errorf("results[%d] = %s, want %s", i, got.Results[i], want)
				}
			}
			if !slices.Equal(got.ItemErrors, tt.want.errors) {
				t.Errorf("item_errors %+v, want %+v", got.ItemErrors, tt.want.errors)
			}
			if tt.want.errors == nil && bytes.Contains(resp.Body, []byte("item_errors")) {
				t.Errorf("an answer without refused items names item_errors: %s", resp.Body)
			}
		})
	}
}

// TestPredictBatchContinueAnswersAsDefault: a batch whose items are all good answers
// with continue exactly as without, byte for byte: existing clients see one shape.
func TestPredictBatchContinueAnswersAsDefault(t *testing.T) {
	h := irisHarness(t)
	for _, body := range []string{
		`"model":"iris","version":"v1","items":` + items(setosa, virginica),
		`"model":"echo","version":"v1","items":` + items(setosa, virginica, `12345678901234567890`, `"<&>"`),
	} {
		plain := h.c.Post("/predict/batch", keyPredict, "{"+body+"}")
		cont := h.c.Post("/predict/batch", keyPredict, `{"on_error":"continue",`+body+"}")
		if plain.Status != 200 || cont.Status != 200 || !bytes.Equal(plain.Body, cont.Body) {
			t.Errorf("%s: %d %s without on_error, %d %s with continue", body, plain.Status, plain.Body, cont.Status, cont.Body)
		}
	}
}

// batchRecord is a job record with the members of a batch job.
type batchRecord struct {
	Status       string            `json:"status"`
	Batch        bool              `json:"batch"`
	Result       []json.RawMessage `json:"result"`
	ErrorMessage *string           `json:"error_message"`
	ItemErrors   []itemError       `json:"item_errors"`
}

// waitBatch long-polls the job until it is final, for a generous while.
func waitBatch(t *testing.T, h *harness, id string) batchRecord {
	t.Helper()
	var rec batchRecord
	testkit.Eventually(t, 2*time.Minute, func() bool {
		resp := h.c.Get("/jobs/"+id+"?wait=10", keyRead)
		if resp.Status != http.StatusOK {
			t.Fatalf("GET /jobs/%s: %d %s", id, resp.Status, resp.Body)
		}
		rec = batchRecord{}
		resp.JSON(t, &rec)
		return rec.Status == "succeeded" || rec.Status == "failed" || rec.Status == "cancelled"
	}, "job %s final: it is still %s", id, func() string { return rec.Status })
	return rec
}

// TestBatchJobOnError: a 1,000-item async job with one refused item, in process: by
// default it fails naming the item; with on_error continue it succeeds with the 999
// good results, each the one /predict gives it, null in the refused item's place, and
// the record's item_errors naming it.
func TestBatchJobOnError(t *testing.T) {
	h := irisHarness(t)
	const n, bad = 1000, 637
	flowers := []string{setosa, virginica}
	its := make([]string, n)
	for i := range its {
		its[i] = flowers[i%2]
	}
	its[bad] = short
	var want [2]json.RawMessage
	for k, f := range flowers {
		resp := h.c.Post("/predict", keyPredict, `{"model":"iris","version":"v1","data":`+f+`}`)
		var p struct {
			Result json.RawMessage `json:"result"`
		}
		resp.JSON(t, &p)
		want[k] = p.Result
	}
	t.Run("fail", func(t *testing.T) {
		id := submit(t, h.c, "/predict/async/batch", `{"model":"iris","version":"v1","items":`+items(its...)+`}`)
		rec := waitBatch(t, h, id)
		if rec.Status != "failed" || rec.ErrorMessage == nil || *rec.ErrorMessage != "items["+strconv.Itoa(bad)+"]: "+shortWhy || rec.ItemErrors != nil {
			t.Fatalf("record %+v, want failed naming items[%d]", rec, bad)
		}
	})
	t.Run("continue", func(t *testing.T) {
		id := submit(t, h.c, "/predict/async/batch", `{"model":"iris","version":"v1","on_error":"continue","items":`+items(its...)+`}`)
		rec := waitBatch(t, h, id)
		if rec.Status != "succeeded" || rec.ErrorMessage != nil || !rec.Batch {
			t.Fatalf("record %+v, want a succeeded batch", rec)
		}
		if len(rec.Result) != n {
			t.Fatalf("%d results for %d items", len(rec.Result), n)
		}
		for i, r := range rec.Result {
			w := want[i%2]
			if i == bad {
				w = json.RawMessage("null")
			}
			if !bytes.Equal(r, w) {
				t.Fatalf("result[%d] = %s, want %s", i, r, w)
			}
		}
		wantErrs := []itemError{{bad, 400, "invalid_input", "items[" + strconv.Itoa(bad) + "]: " + shortWhy}}
		if !slices.Equal(rec.ItemErrors, wantErrs) {
			t.Fatalf("item_errors %+v, want %+v", rec.ItemErrors, wantErrs)
		}
	})
}
