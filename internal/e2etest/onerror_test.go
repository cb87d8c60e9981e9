package e2etest

import (
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/inferd/inferd/client"
)

// TestBatchOnError: through the Go SDK, a batch with BatchRequest.OnError set to
// OnErrorContinue answers each item on its own, synchronously and as a job (a 1,000-item
// one with one refused item among them): null and an ItemErrors entry for the refused
// item, which client.ItemError reads as the *Error a batch of it alone is refused with;
// without it, the batch is refused whole.
func TestBatchOnError(t *testing.T) {
	tg := start(t)
	setosa := []float64{5.1, 3.5, 1.4, 0.2}
	virginica := map[string]float64{"sepal_length": 6.7, "sepal_width": 3.0, "petal_length": 5.2, "petal_width": 2.3}
	short := []float64{5.1, 3.5, 1.4}
	const virginicaAnswer = `[{"label":"virginica","score":0.9199},{"label":"versicolor","score":0.0801},{"label":"setosa","score":0.0001}]`
	refused := func(i int) client.BatchItemError {
		return client.BatchItemError{Index: i, Status: 400, Code: client.CodeInvalidInput, Detail: "items[" + strconv.Itoa(i) + "]: expected 4 numbers, got 3"}
	}

	t.Run("fail by default", func(t *testing.T) {
		_, err := tg.dev.PredictBatch(ctx(t), client.BatchRequest{Model: "iris", Version: "v1", Items: []any{setosa, short}})
		var ce *client.Error
		if !errors.As(err, &ce) || ce.Code != client.CodeInvalidInput || ce.Detail != refused(1).Detail {
			t.Fatalf("PredictBatch: %v, want %s", err, refused(1).Detail)
		}
	})

	t.Run("PredictBatch", func(t *testing.T) {
		p, err := tg.dev.PredictBatch(ctx(t), client.BatchRequest{Model: "iris", Version: "v1", Items: []any{setosa, short, virginica}, OnError: client.OnErrorContinue})
		if err != nil {
			t.Fatal(err)
		}
		results, _ := json.Marshal(p.Results)
		sameJSON(t, results, `[`+irisSetosa+`,null,`+virginicaAnswer+`]`)
		if !slices.Equal(p.ItemErrors, []client.BatchItemError{refused(1)}) {
			t.Fatalf("ItemErrors %+v", p.ItemErrors)
		}
		if e := client.ItemError(p.ItemErrors[0]); !client.IsCode(e, client.CodeInvalidInput) || e.Status != 400 || e.Detail != refused(1).Detail {
			t.Errorf("ItemError = %#v", e)
		}
	})

	t.Run("a 1,000-item job", func(t *testing.T) {
		const n, bad = 1000, 421
		its := make([]any, n)
		for i := range its {
			its[i] = setosa
		}
		its[bad] = short
		for _, submit := range []struct {
			name string
			f    func(client.BatchRequest) (string, error)
		}{
			{"SubmitBatch", func(r client.BatchRequest) (string, error) { return tg.dev.SubmitBatch(ctx(t), r) }},
			{"SubmitBatchWith", func(r client.BatchRequest) (string, error) {
				return tg.dev.SubmitBatchWith(ctx(t), r, client.SubmitOptions{Priority: "high"})
			}},
		} {
			t.Run(submit.name, func(t *testing.T) {
				id, err := submit.f(client.BatchRequest{Model: "iris", Version: "v1", Items: its, OnError: client.OnErrorContinue})
				if err != nil {
					t.Fatal(err)
				}
				rec, err := tg.dev.WaitJob(ctx(t), id, client.WaitOptions{Initial: 5 * time.Millisecond})
				if err != nil {
					t.Fatal(err)
				}
				if rec.Status != client.JobSucceeded || rec.ErrorMessage != nil {
					t.Fatalf("status %s, error %v", rec.Status, rec.ErrorMessage)
				}
				var results []json.RawMessage
				if err := json.Unmarshal(rec.Result, &results); err != nil || len(results) != n {
					t.Fatalf("%d results (%v) for %d items", len(results), err, n)
				}
				for i, r := range results {
					want := irisSetosa
					if i == bad {
						want = "null"
					}
					sameJSON(t, r, want)
				}
				if !slices.Equal(rec.ItemErrors, []client.BatchItemError{refused(bad)}) {
					t.Fatalf("ItemErrors %+v", rec.ItemErrors)
				}
			})
		}
		t.Run("fail by default", func(t *testing.T) {
			id, err := tg.dev.SubmitBatch(ctx(t), client.BatchRequest{Model: "iris", Version: "v1", Items: its})
			if err != nil {
				t.Fatal(err)
			}
			_, err = tg.dev.WaitJob(ctx(t), id, client.WaitOptions{Initial: 5 * time.Millisecond})
			var je *client.JobError
			if !errors.As(err, &je) {
				t.Fatalf("WaitJob: %v, want a *client.JobError", err)
			}
			if rec := je.Record; rec.Status != client.JobFailed || rec.ErrorMessage == nil || *rec.ErrorMessage != refused(bad).Detail || rec.ItemErrors != nil {
				t.Fatalf("record %+v, want failed with %s", rec, refused(bad).Detail)
			}
		})
	})
}
