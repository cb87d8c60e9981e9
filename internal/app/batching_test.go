package app_test

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/inferd/inferd/internal/testkit"
)

// batchingRepo is the example repository with dynamic batching turned on for iris v1,
// plus an echo model "slow" whose calls take 20 ms, so concurrent requests queue behind
// one another and share calls.
func batchingRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	testkit.CopyDir(t, repoModels(t), dir)
	yml := filepath.Join(dir, "iris", "v1", "model.yaml")
	b, err := os.ReadFile(yml)
	if err != nil {
		t.Fatal(err)
	}
	b = append(b, "dynamic_batching:\n  max_queue_delay: 2ms\n"...)
	slow := filepath.Join(dir, "slow", "v1")
	if err := os.MkdirAll(slow, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := errors.Join(os.WriteFile(yml, b, 0o644),
		os.WriteFile(filepath.Join(slow, "model.yaml"), []byte("backend: echo\ndelay: 20ms\nmax_batch_size: 8\ndynamic_batching: {max_queue_delay: 1ms}\n"), 0o644)); err != nil {
		t.Fatal(err)
	}
	return dir
}

// histogram reads the sample count and the count of observations <= le of one
// histogram series from /metrics; ok is false when the series is absent.
func histogram(t *testing.T, s *started, name, modelName, le string) (count, below uint64, ok bool) {
	t.Helper()
	resp := s.c.Get("/metrics", "")
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(bytes.NewReader(resp.Body))
	if err != nil {
		t.Fatalf("parsing /metrics: %v", err)
	}
	f := families[name]
	if f == nil {
		return 0, 0, false
	}
	for _, m := range f.GetMetric() {
		for _, l := range m.GetLabel() {
			if l.GetName() == "model" && l.GetValue() == modelName {
				h := m.GetHistogram()
				for _, bk := range h.GetBucket() {
					if fmt.Sprint(bk.GetUpperBound()) == le {
						below = bk.GetCumulativeCount()
					}
				}
				return h.GetSampleCount(), below, true
			}
		}
	}
	return 0, 0, false
}

// wave sends n concurrent /predict requests and returns their statuses and bodies.
func wave(t *testing.T, s *started, n int, body func(i int) string) ([]int, []string) {
	t.Helper()
	codes, out := make([]int, n), make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := s.c.TryDo(s.c.NewRequest(http.MethodPost, "/predict", "dev-key", body(i)))
			if err != nil {
				t.Errorf("request %d: %v", i, err)
				return
			}
			codes[i], out[i] = resp.Status, string(resp.Body)
		}()
	}
	wg.Wait()
	return codes, out
}

// TestDynamicBatchingOverHTTP: over a real socket, concurrent /predict requests to a
// batching version share model calls (inferd_batch_size sees calls of more than one
// item, inferd_batch_queue_seconds the waits), every client gets the answer it would
// get alone, and an invalid request among them fails alone with today's 400.
// DYNAMIC_BATCHING=false turns it off: every call is one request's.
func TestDynamicBatchingOverHTTP(t *testing.T) {
	dir := batchingRepo(t)
	irisBody := func(i int) string {
		return fmt.Sprintf(`{"model":"iris","version":"v1","data":[%d.%d,3.1,%d.2,%d.4]}`, 4+i%4, i%10, 1+i%6, i%3)
	}
	tests := []struct {
		name    string
		batched bool
	}{
		{"on", true},
		{"DYNAMIC_BATCHING=false", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := map[string]string{"MODELS_DIR": dir, "RATE_LIMIT_RPS": "0"}
			if !tt.batched {
				env["DYNAMIC_BATCHING"] = "false"
			}
			s := startApp(t, env, true)

			// The real model: each of 32 concurrent clients gets what it gets alone,
			// and client 5, whose input is invalid, gets today's 400 alone.
			body := func(i int) string {
				if i == 5 {
					return `{"model":"iris","version":"v1","data":[5.1,3.5,1.4]}`
				}
				return irisBody(i)
			}
			codes, alone := make([]int, 32), make([]string, 32)
			for i := range alone {
				resp := s.c.Post("/predict", "dev-key", body(i))
				codes[i], alone[i] = resp.Status, string(resp.Body)
			}
			if codes[5] != http.StatusBadRequest || !strings.Contains(alone[5], `"detail":"data: expected 4 numbers, got 3"`) {
				t.Fatalf("the invalid request alone: %d %s", codes[5], alone[5])
			}
			gotCodes, got := wave(t, s, 32, body)
			for i := range got {
				if i == 5 {
					if gotCodes[i] != http.StatusBadRequest || !strings.Contains(got[i], `"detail":"data: expected 4 numbers, got 3"`) {
						t.Errorf("the invalid request among others: %d %s", gotCodes[i], got[i])
					}
					continue
				}
				if gotCodes[i] != http.StatusOK || got[i] != alone[i] {
					t.Errorf("client %d got %d %s concurrently, %d %s alone", i, gotCodes[i], got[i], codes[i], alone[i])
				}
			}
			if n, _, ok := histogram(t, s, "inferd_batch_size", "iris", "1"); !ok || n == 0 {
				t.Errorf("inferd_batch_size has no iris calls")
			}

			// The slow echo: 16 clients at once queue behind a 20 ms call.
			// Calls of more than one item are all but certain in one wave; a few
			// waves make a slow machine's scheduling irrelevant.
			for range 5 {
				codes, got := wave(t, s, 16, func(i int) string { return fmt.Sprintf(`{"model":"slow","data":{"client":%d}}`, i) })
				for i, body := range got {
					if codes[i] != http.StatusOK || !strings.Contains(body, fmt.Sprintf(`"result":{"client":%d}`, i)) {
						t.Errorf("client %d got %d %s", i, codes[i], body)
					}
				}
				count, ones, _ := histogram(t, s, "inferd_batch_size", "slow", "1")
				if !tt.batched || count > ones {
					break
				}
			}
			count, ones, ok := histogram(t, s, "inferd_batch_size", "slow", "1")
			_, _, queued := histogram(t, s, "inferd_batch_queue_seconds", "slow", "1")
			switch {
			case !ok:
				t.Errorf("inferd_batch_size has no slow calls")
			case tt.batched && (count == ones || !queued):
				t.Errorf("batching on: %d calls, %d of one item, queue series %v; want calls of more than one", count, ones, queued)
			case !tt.batched && (count != ones || queued):
				t.Errorf("batching off: %d calls, %d of one item, queue series %v; want every call of one", count, ones, queued)
			}
		})
	}
}
