package job_test

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/inferd/inferd/internal/job"
	"github.com/inferd/inferd/internal/pipeline"
)

// eachPredictor refuses the items that are strings, alone, as a pipeline run with
// RunEachWith does.
type eachPredictor struct{ predictor }

func (p *eachPredictor) PredictEach(_ context.Context, _, _ string, items []json.RawMessage) ([]json.RawMessage, []*pipeline.InputError, error) {
	p.calls.Add(1)
	out := make([]json.RawMessage, len(items))
	var failed []*pipeline.InputError
	for i, it := range items {
		if strings.HasPrefix(string(it), `"`) {
			failed = append(failed, &pipeline.InputError{Item: i, Msg: "expected a number, got a string"})
			continue
		}
		out[i] = it
	}
	return out, failed, nil
}

// TestExecuteEachItem: a batch job whose items fail alone succeeds with null in each
// refused item's place and the items in ItemErrors, worded as a batch's refusal names
// them; a runner whose predictor cannot run one fails the job saying so; a single
// job or a batch without EachItem runs as ever.
func TestExecuteEachItem(t *testing.T) {
	tests := []struct {
		name      string
		rec       job.Record
		predictor job.Predictor
		want      job.Record // Status, Result, Error, ItemErrors
	}{
		{"some items refused", job.Record{Batch: true, EachItem: true, Input: json.RawMessage(`[1,"two",3,"four"]`)}, &eachPredictor{},
			job.Record{Status: job.StatusSucceeded, Result: json.RawMessage(`[1,null,3,null]`), ItemErrors: []job.ItemError{
				{Index: 1, Detail: "items[1]: expected a number, got a string"}, {Index: 3, Detail: "items[3]: expected a number, got a string"}}}},
		{"every item refused", job.Record{Batch: true, EachItem: true, Input: json.RawMessage(`["one"]`)}, &eachPredictor{},
			job.Record{Status: job.StatusSucceeded, Result: json.RawMessage(`[null]`), ItemErrors: []job.ItemError{{Index: 0, Detail: "items[0]: expected a number, got a string"}}}},
		{"no item refused", job.Record{Batch: true, EachItem: true, Input: json.RawMessage(`[1,2]`)}, &eachPredictor{},
			job.Record{Status: job.StatusSucceeded, Result: json.RawMessage(`[1,2]`)}},
		{"a predictor that cannot", job.Record{Batch: true, EachItem: true, Input: json.RawMessage(`[1]`)}, &predictor{},
			job.Record{Status: job.StatusFailed, Error: "execution error: this runner cannot run a batch whose items fail alone (on_error continue)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newClock()
			s := newStore(c)
			tt.rec.Status = job.StatusPending
			rec := create(t, s, tt.rec)
			e := &job.Executor{Store: s, Predictor: tt.predictor, Now: c.Now}
			if err := e.Execute(context.Background(), rec.ID); err != nil {
				t.Fatal(err)
			}
			got := get(t, s, rec.ID)
			if got.Status != tt.want.Status || string(got.Result) != string(tt.want.Result) || got.Error != tt.want.Error || !reflect.DeepEqual(got.ItemErrors, tt.want.ItemErrors) {
				t.Fatalf("record %s %s %q %+v, want %s %s %q %+v", got.Status, got.Result, got.Error, got.ItemErrors,
					tt.want.Status, tt.want.Result, tt.want.Error, tt.want.ItemErrors)
			}
		})
	}
}
