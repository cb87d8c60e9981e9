package pipeline_test

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/inferd/inferd/internal/pipeline"
	"github.com/inferd/inferd/internal/tensor"
)

// itemStep applies f to each item on its own, as every step of the catalogue does,
// naming the item of an error; calls counts its Apply calls.
type itemStep struct {
	name  string
	f     func(v any) (any, error)
	calls int
}

func (s *itemStep) Name() string { return s.name }
func (s *itemStep) Apply(_ context.Context, batch []any) ([]any, error) {
	s.calls++
	out := make([]any, len(batch))
	for i, v := range batch {
		r, err := s.f(v)
		if err != nil {
			return nil, pipeline.AtItem(i, err)
		}
		out[i] = r
	}
	return out, nil
}

// countingModel answers each float with a tensor of its square, recording the size of
// each call; a 13 makes the runtime fail, an execution error, which is no item's.
type countingModel struct{ calls []int }

func (m *countingModel) Predict(_ context.Context, batch []any) ([]any, error) {
	m.calls = append(m.calls, len(batch))
	out := make([]any, len(batch))
	for i, v := range batch {
		f := v.(float64)
		if f == 13 {
			return nil, errors.New("the runtime failed")
		}
		out[i] = tensor.NewFloat(tensor.Float64, []int64{1}, []float64{f * f})
	}
	return out, nil
}
func (*countingModel) Close() error { return nil }

// eachPipeline: preprocess reads a number (refusing anything else) and refuses a
// negative one; the model squares it (1e200 overflows to +Inf, which has no JSON
// spelling); postprocess refuses a square above 1e6.
func eachPipeline() (*pipeline.Pipeline, *countingModel, *itemStep) {
	parse := &itemStep{name: "parse", f: func(v any) (any, error) {
		f, err := strconv.ParseFloat(string(v.(json.RawMessage)), 64)
		if err != nil {
			return nil, pipeline.Invalid("", "expected a number, got %s", v)
		}
		return f, nil
	}}
	positive := &itemStep{name: "positive", f: func(v any) (any, error) {
		if v.(float64) < 0 {
			return nil, pipeline.Invalid("", "expected a positive number, got %v", v)
		}
		return v, nil
	}}
	small := &itemStep{name: "small", f: func(v any) (any, error) {
		if x := v.(*tensor.Tensor).Floats()[0]; x > 1e6 && !math.IsInf(x, 1) {
			return nil, pipeline.Invalid("", "the square %v is above 1e6", x)
		}
		return v, nil
	}}
	m := &countingModel{}
	return &pipeline.Pipeline{Pre: []pipeline.Step{parse, positive}, Model: m, Post: []pipeline.Step{small}}, m, parse
}

func raws(items ...string) []json.RawMessage {
	out := make([]json.RawMessage, len(items))
	for i, it := range items {
		out[i] = json.RawMessage(it)
	}
	return out
}

// TestRunEach: each item that a stage refuses fails alone, with the error the whole
// batch would have failed with, and the others get the results they get alone; the
// model runs once, on the items that reached it.
func TestRunEach(t *testing.T) {
	tests := []struct {
		name       string
		items      []json.RawMessage
		want       []string // per item: its result, or its error as In("items[i]") words it
		modelCalls []int
		parseCalls int
	}{
		{"every item good", raws(`1`, `2`, `3`), []string{`[1]`, `[4]`, `[9]`}, []int{3}, 1},
		{"one refused by the first step", raws(`1`, `"two"`, `3`), []string{`[1]`, `items[1]: expected a number, got "two"`, `[9]`}, []int{2}, 3},
		{"refused by each stage", raws(`"a"`, `2`, `-3`, `1001`, `4`, `1e200`, `null`),
			[]string{`items[0]: expected a number, got "a"`, `[4]`, `items[2]: expected a positive number, got -3`, `items[3]: the square 1.002001e+06 is above 1e6`, `[16]`,
				`items[5]: the result is not a finite number: the input is too large for the model's arithmetic; send values of the size the model was trained on`, `items[6]: expected a number, got null`},
			[]int{4}, 7},
		{"every item refused", raws(`"a"`, `-1`), []string{`items[0]: expected a number, got "a"`, `items[1]: expected a positive number, got -1`}, nil, 2},
		{"one item, refused", raws(`-1`), []string{`items[0]: expected a positive number, got -1`}, nil, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, m, parse := eachPipeline()
			out, failed, err := p.RunEachWith(context.Background(), tt.items, nil, p.Model.Predict, nil)
			if err != nil {
				t.Fatalf("RunEachWith: %v", err)
			}
			if len(out) != len(tt.items) {
				t.Fatalf("%d results for %d items", len(out), len(tt.items))
			}
			got := make([]string, len(out))
			for i, r := range out {
				got[i] = string(r)
			}
			if !slices.IsSortedFunc(failed, func(a, b *pipeline.InputError) int { return a.Item - b.Item }) {
				t.Errorf("failed not in the order of items: %v", failed)
			}
			for _, ie := range failed {
				if out[ie.Item] != nil {
					t.Errorf("item %d failed with a result %s", ie.Item, out[ie.Item])
				}
				got[ie.Item] = ie.In("items[" + strconv.Itoa(ie.Item) + "]")
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got\n %s\nwant\n %s", strings.Join(got, "\n "), strings.Join(tt.want, "\n "))
			}
			if !slices.Equal(m.calls, tt.modelCalls) {
				t.Errorf("model calls of %v items, want %v", m.calls, tt.modelCalls)
			}
			if parse.calls != tt.parseCalls {
				t.Errorf("the first step ran %d times, want %d", parse.calls, tt.parseCalls)
			}
			// Each item's outcome is the one RunWith gives it alone.
			for i, it := range tt.items {
				p, _, _ := eachPipeline()
				alone, err := p.Run(context.Background(), []json.RawMessage{it}, nil)
				want := ""
				if err == nil {
					want = string(alone[0])
				} else {
					var ie *pipeline.InputError
					if !errors.As(err, &ie) {
						t.Fatalf("item %d alone: %v", i, err)
					}
					want = ie.In("items[" + strconv.Itoa(i) + "]")
				}
				if got[i] != want {
					t.Errorf("item %d: %s in the batch, %s alone", i, got[i], want)
				}
			}
		})
	}
}

// TestRunEachWholeFailures: what is no item's fault fails the whole run, as in RunWith.
func TestRunEachWholeFailures(t *testing.T) {
	p, _, _ := eachPipeline()
	if _, _, err := p.RunEachWith(context.Background(), raws(`1`, `"x"`, `13`), nil, p.Model.Predict, nil); !errors.Is(err, pipeline.ErrExecution) {
		t.Errorf("a model that fails: %v, want an execution error", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := p.RunEachWith(ctx, raws(`1`), nil, p.Model.Predict, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled run: %v, want context.Canceled", err)
	}
	panicking := &pipeline.Pipeline{Model: panicModel{}}
	var pe *pipeline.PanicError
	if _, _, err := panicking.RunEachWith(context.Background(), raws(`1`), nil, panicModel{}.Predict, nil); !errors.As(err, &pe) {
		t.Errorf("a panic: %v, want a PanicError", err)
	}
}

// BenchmarkRunEach: a 1,000-item batch through RunWith and through RunEachWith with no,
// one and a hundred refused items: what on_error continue costs over the default.
func BenchmarkRunEach(b *testing.B) {
	batch := func(bad int) []json.RawMessage {
		items := make([]json.RawMessage, 1000)
		for i := range items {
			items[i] = json.RawMessage(strconv.Itoa(i%10 + 1)) // 13 would fail the model
			if i%10 == 0 && i/10 < bad {
				items[i] = json.RawMessage(`"refused"`)
			}
		}
		return items
	}
	b.Run("run", func(b *testing.B) {
		items := batch(0)
		p, _, _ := eachPipeline()
		for b.Loop() {
			if _, err := p.Run(context.Background(), items, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, bad := range []int{0, 1, 100} {
		b.Run("each/refused="+strconv.Itoa(bad), func(b *testing.B) {
			items := batch(bad)
			p, _, _ := eachPipeline()
			for b.Loop() {
				if _, failed, err := p.RunEachWith(context.Background(), items, nil, p.Model.Predict, nil); err != nil || len(failed) != bad {
					b.Fatal(err, len(failed))
				}
			}
		})
	}
}
