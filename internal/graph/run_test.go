package graph_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/inferd/inferd/internal/graph"
	"github.com/inferd/inferd/internal/tensor"
)

func rowsOf(rows ...[]float64) *tensor.Tensor {
	var vals []float64
	for _, r := range rows {
		vals = append(vals, r...)
	}
	return tensor.NewFloat(tensor.Float64, []int64{int64(len(rows)), int64(len(rows[0]))}, vals)
}

func mustLoad(t *testing.T, f *fleet, src string) *graph.Graph {
	t.Helper()
	g, err := load(t, f, src)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func run(t *testing.T, g *graph.Graph, f *fleet, in *tensor.Tensor) (tensor.Map, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	return runMap(ctx, g, tensor.Map{"x": in}, f, nil)
}

func values(t *testing.T, m tensor.Map, name string) []float64 {
	t.Helper()
	v := m[name]
	if v == nil {
		t.Fatalf("no output %q in %v", name, m)
	}
	out := make([]float64, v.Len())
	for i := range out {
		out[i] = v.At(i)
	}
	return out
}

func TestRunComputesThroughSteps(t *testing.T) {
	f := newFleet()
	g := mustLoad(t, f, x+`steps:
  - {name: d, model: double, inputs: {x: request.x}}
  - {name: i, model: inc, inputs: {x: request.x}}
  - {name: s, model: add, inputs: {a: d.y, b: i.y}}
outputs: {y: s.sum}
`)
	out, err := run(t, g, f, rowsOf([]float64{1, 2, 3}, []float64{-1, 0, 0.5}))
	if err != nil {
		t.Fatal(err)
	}
	// 2x + (x+1) for every element.
	if got, want := values(t, out, "y"), []float64{4, 7, 10, -2, 1, 2.5}; !slices.Equal(got, want) {
		t.Errorf("y = %v, want %v", got, want)
	}
	if got := out["y"].Shape; !slices.Equal(got, []int64{2, 3}) {
		t.Errorf("shape %v, want [2 3]", got)
	}
}

// barrier lets n calls through only once all n are in flight, so a graph that ran
// them one after another would wait until the test's deadline.
func barrier(n int) func(ctx context.Context) error {
	var mu sync.Mutex
	count := 0
	all := make(chan struct{})
	return func(ctx context.Context) error {
		mu.Lock()
		if count++; count == n {
			close(all)
		}
		mu.Unlock()
		select {
		case <-all:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func TestRunIndependentStepsConcurrently(t *testing.T) {
	f := newFleet()
	wait := barrier(2)
	for _, name := range []string{"left", "right"} {
		m := f.members["double"]
		inner := m.fn
		m.fn = func(ctx context.Context, ins tensor.Map) (tensor.Map, error) {
			if err := wait(ctx); err != nil {
				return nil, err
			}
			return inner(ctx, ins)
		}
		f.members[name] = m
	}
	g := mustLoad(t, f, x+`steps:
  - {name: l, model: left, inputs: {x: request.x}}
  - {name: r, model: right, inputs: {x: request.x}}
joins: [{name: m, mean: [l.y, r.y]}]
outputs: {y: m}
`)
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	out, err := runMap(ctx, g, tensor.Map{"x": rowsOf([]float64{1, 2, 3})}, f, nil)
	if err != nil {
		t.Fatalf("%v: the two steps did not overlap", err)
	}
	if got := values(t, out, "y"); !slices.Equal(got, []float64{2, 4, 6}) {
		t.Errorf("y = %v", got)
	}
}

func TestRunCondition(t *testing.T) {
	f := newFleet()
	// The large model (square) runs only when the small one (double) tops below 10;
	// the answer is the large model's when it ran, else the small one's.
	g := mustLoad(t, f, x+`steps:
  - {name: small, model: double, inputs: {x: request.x}}
  - {name: large, model: square, inputs: {x: request.x}, when: {source: small.y, max: {below: 10}}}
joins: [{name: answer, pick: [large.y, small.y]}]
outputs: {y: answer}
`)
	for _, tc := range []struct {
		name  string
		in    *tensor.Tensor
		want  []float64
		large int
	}{
		{"taken", rowsOf([]float64{1, 2, 3}), []float64{1, 4, 9}, 1},
		{"not taken", rowsOf([]float64{5, 6, 7}), []float64{10, 12, 14}, 0},
		{"taken for the batch when one row meets it", rowsOf([]float64{5, 6, 7}, []float64{1, 2, 3}), []float64{25, 36, 49, 1, 4, 9}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := f.called("square")
			out, err := run(t, g, f, tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if got := values(t, out, "y"); !slices.Equal(got, tc.want) {
				t.Errorf("y = %v, want %v", got, tc.want)
			}
			if got := f.called("square") - before; got != tc.large {
				t.Errorf("square called %d times, want %d", got, tc.large)
			}
		})
	}
}

func TestRunConditionStatistics(t *testing.T) {
	for _, tc := range []struct {
		when string
		in   []float64
		runs bool
	}{
		{"max: {below: 3}", []float64{1, 2, 3}, false},
		{"max: {below: 3.5}", []float64{1, 2, 3}, true},
		{"max: {above: 2}", []float64{1, 2, 3}, true},
		{"min: {above: 1}", []float64{1, 2, 3}, false},
		{"min: {above: 0.5, below: 1.5}", []float64{1, 2, 3}, true},
		{"argmax: {equals: 2}", []float64{1, 2, 3}, true},
		{"argmax: {equals: 0}", []float64{1, 2, 3}, false},
		{"argmax: {below: 1}", []float64{3, 2, 1}, true},
	} {
		t.Run(tc.when, func(t *testing.T) {
			f := newFleet()
			g := mustLoad(t, f, x+"steps: [{name: a, model: double, inputs: {x: request.x}, when: {source: request.x, "+tc.when+"}}]\n"+
				"joins: [{name: p, pick: [a.y, request.x]}]\noutputs: {y: p}\n")
			if _, err := run(t, g, f, rowsOf(tc.in)); err != nil {
				t.Fatal(err)
			}
			if ran := f.called("double") == 1; ran != tc.runs {
				t.Errorf("step ran: %v, want %v", ran, tc.runs)
			}
		})
	}
}

func TestRunSkipsWhatDependsOnASkippedStep(t *testing.T) {
	f := newFleet()
	g := mustLoad(t, f, x+`steps:
  - {name: a, model: double, inputs: {x: request.x}, when: {source: request.x, max: {above: 100}}}
  - {name: b, model: inc, inputs: {x: a.y}}
joins: [{name: p, pick: [b.y, request.x]}]
outputs: {y: p}
`)
	out, err := run(t, g, f, rowsOf([]float64{1, 2, 3}))
	if err != nil {
		t.Fatal(err)
	}
	if got := values(t, out, "y"); !slices.Equal(got, []float64{1, 2, 3}) {
		t.Errorf("y = %v, want the request's x", got)
	}
	if f.called("double")+f.called("inc") != 0 {
		t.Errorf("calls %v, want none", f.calls)
	}
}

func TestRunFailPolicy(t *testing.T) {
	f := newFleet()
	g := mustLoad(t, f, x+`steps:
  - {name: broken, model: fail, inputs: {x: request.x}}
  - {name: after, model: double, inputs: {x: broken.y}}
outputs: {y: after.y}
`)
	_, err := run(t, g, f, rowsOf([]float64{1, 2, 3}))
	if !errors.Is(err, graph.ErrStepFailed) || !errors.Is(err, errMemberDown) {
		t.Fatalf("%v: want ErrStepFailed wrapping the member's error", err)
	}
	var se *graph.StepError
	if !errors.As(err, &se) || se.Step != "broken" || se.Model != "fail" {
		t.Errorf("%v: want a StepError naming step broken, model fail", err)
	}
	if !strings.Contains(err.Error(), `"broken"`) {
		t.Errorf("%q does not name the step", err)
	}
	if f.called("double") != 0 {
		t.Error("the step after the failed one ran")
	}
}

func TestRunFallbackPolicy(t *testing.T) {
	f := newFleet()
	g := mustLoad(t, f, x+`steps:
  - {name: broken, model: fail, inputs: {x: request.x}, on_error: fallback, fallback: {y: [0.25, 0.25, 0.5]}}
  - {name: after, model: double, inputs: {x: broken.y}}
outputs: {y: after.y}
`)
	out, err := run(t, g, f, rowsOf([]float64{1, 2, 3}, []float64{4, 5, 6}))
	if err != nil {
		t.Fatal(err)
	}
	// The fallback row, once per request row, doubled by the next step.
	if got, want := values(t, out, "y"), []float64{0.5, 0.5, 1, 0.5, 0.5, 1}; !slices.Equal(got, want) {
		t.Errorf("y = %v, want %v", got, want)
	}
}

func TestRunRefusesAnswersOutsideTheSignature(t *testing.T) {
	for _, tc := range []struct {
		name   string
		answer tensor.Map
	}{
		{"missing output", tensor.Map{"error": tensor.NewFloat(tensor.Float64, []int64{1, 3}, []float64{0, 0, 0})}},
		{"wrong dtype", tensor.Map{"y": tensor.NewInt(tensor.Int64, []int64{1, 3}, []int64{0, 0, 0})}},
		{"wrong shape", tensor.Map{"y": tensor.NewFloat(tensor.Float64, []int64{1, 2}, []float64{0, 0})}},
		{"wrong rows", tensor.Map{"y": tensor.NewFloat(tensor.Float64, []int64{2, 3}, []float64{0, 0, 0, 0, 0, 0})}},
		{"values unlike its shape", tensor.Map{"y": tensor.NewFloat(tensor.Float64, []int64{1, 3}, []float64{0})}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFleet()
			m := f.members["double"]
			m.fn = func(context.Context, tensor.Map) (tensor.Map, error) { return tc.answer, nil }
			f.members["odd"] = m
			g := mustLoad(t, f, x+"steps: [{name: o, model: odd, inputs: {x: request.x}}]\noutputs: {y: o.y}\n")
			_, err := run(t, g, f, rowsOf([]float64{1, 2, 3}))
			if !errors.Is(err, graph.ErrExecution) || !strings.Contains(err.Error(), `step "o"`) {
				t.Fatalf("%v: want ErrExecution naming step o", err)
			}
		})
	}
}

func TestRunJoins(t *testing.T) {
	for _, tc := range []struct {
		name, join string
		want       []float64
		shape      []int64
	}{
		// d = 2x = [2, 4, 6] and i = x+1 = [2, 3, 4] on x = [1, 2, 3]; the weighted
		// mean is (3d + i) / 4.
		{"mean", "mean: [d.y, i.y]", []float64{2, 3.5, 5}, []int64{1, 3}},
		{"weighted mean", "weighted_mean: {sources: [d.y, i.y], weights: [3, 1]}", []float64{2, 3.75, 5.5}, []int64{1, 3}},
		{"concat", "concat: {sources: [d.y, i.y, request.x], axis: 1}", []float64{2, 4, 6, 2, 3, 4, 1, 2, 3}, []int64{1, 9}},
		{"pick", "pick: [d.y, i.y]", []float64{2, 4, 6}, []int64{1, 3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFleet()
			g := mustLoad(t, f, x+`steps:
  - {name: d, model: double, inputs: {x: request.x}}
  - {name: i, model: inc, inputs: {x: request.x}}
joins: [{name: j, `+tc.join+`}]
outputs: {y: j}
`)
			out, err := run(t, g, f, rowsOf([]float64{1, 2, 3}))
			if err != nil {
				t.Fatal(err)
			}
			if got := values(t, out, "y"); !slices.Equal(got, tc.want) {
				t.Errorf("y = %v, want %v", got, tc.want)
			}
			if got := out["y"].Shape; !slices.Equal(got, tc.shape) {
				t.Errorf("shape %v, want %v", got, tc.shape)
			}
		})
	}
}

func TestRunConcatRows(t *testing.T) {
	f := newFleet()
	g := mustLoad(t, f, x+`steps: [{name: d, model: double, inputs: {x: request.x}}]
joins: [{name: c, concat: {sources: [request.x, d.y], axis: 1}}]
outputs: {y: c}
`)
	out, err := run(t, g, f, rowsOf([]float64{1, 2, 3}, []float64{4, 5, 6}))
	if err != nil {
		t.Fatal(err)
	}
	// Each row is its x, then its 2x: rows stay rows.
	if got, want := values(t, out, "y"), []float64{1, 2, 3, 2, 4, 6, 4, 5, 6, 8, 10, 12}; !slices.Equal(got, want) {
		t.Errorf("y = %v, want %v", got, want)
	}
}

// blocking is a member that says it started and then holds until its context ends.
func blocking(f *fleet) (started chan time.Time) {
	started = make(chan time.Time, 1)
	m := f.members["double"]
	m.fn = func(ctx context.Context, _ tensor.Map) (tensor.Map, error) {
		d, _ := ctx.Deadline()
		started <- d
		<-ctx.Done()
		return nil, ctx.Err()
	}
	f.members["block"] = m
	return started
}

func TestRunCancelledStops(t *testing.T) {
	f := newFleet()
	started := blocking(f)
	// The fallback must not hide the cancellation: a run that is over is over.
	g := mustLoad(t, f, x+`steps:
  - {name: b, model: block, inputs: {x: request.x}, on_error: fallback, fallback: {y: [0, 0, 0]}}
  - {name: after, model: inc, inputs: {x: b.y}}
outputs: {y: after.y}
`)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		_, err := runMap(ctx, g, tensor.Map{"x": rowsOf([]float64{1, 2, 3})}, f, nil)
		done <- err
	}()
	<-started
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("%v: want context.Canceled", err)
	}
	if f.called("inc") != 0 {
		t.Error("the step after the cancelled one ran")
	}
}

func TestRunPassesTheDeadline(t *testing.T) {
	f := newFleet()
	started := blocking(f)
	g := mustLoad(t, f, x+"steps: [{name: b, model: block, inputs: {x: request.x}}]\noutputs: {y: b.y}\n")
	deadline := time.Now().Add(50 * time.Millisecond)
	ctx, cancel := context.WithDeadline(t.Context(), deadline)
	defer cancel()
	_, err := runMap(ctx, g, tensor.Map{"x": rowsOf([]float64{1, 2, 3})}, f, nil)
	if got := <-started; !got.Equal(deadline) {
		t.Errorf("the member saw deadline %v, want %v", got, deadline)
	}
	if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, graph.ErrStepFailed) {
		t.Errorf("%v: want the step failed with DeadlineExceeded", err)
	}
}

func TestRunRefusesBadRequests(t *testing.T) {
	f := newFleet()
	g := mustLoad(t, f, x+"steps: [{name: d, model: double, inputs: {x: request.x}}]\noutputs: {y: d.y}\n")
	for _, tc := range []struct {
		name string
		in   []tensor.Named
		want string
	}{
		{"missing", nil, `input "x" is missing`},
		{"unknown", []tensor.Named{{Name: "x", Tensor: rowsOf([]float64{1, 2, 3})}, {Name: "z", Tensor: rowsOf([]float64{1})}}, `unknown input "z"`},
		{"twice", []tensor.Named{{Name: "x", Tensor: rowsOf([]float64{1, 2, 3})}, {Name: "x", Tensor: rowsOf([]float64{1, 2, 3})}}, `input "x" is given twice`},
		{"dtype", []tensor.Named{{Name: "x", Tensor: tensor.NewInt(tensor.Int64, []int64{1, 3}, []int64{1, 2, 3})}}, `input "x" is int64, the graph takes float64`},
		{"shape", []tensor.Named{{Name: "x", Tensor: rowsOf([]float64{1, 2})}}, `input "x" has shape [1,2], the graph takes [-1,3]`},
		{"no rows", []tensor.Named{{Name: "x", Tensor: tensor.NewFloat(tensor.Float64, []int64{0, 3}, nil)}}, `input "x" has no rows`},
		{"values", []tensor.Named{{Name: "x", Tensor: tensor.NewFloat(tensor.Float64, []int64{1, 3}, []float64{1})}}, "holds 1 values, not 3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := g.Run(t.Context(), tc.in, f, nil)
			if !errors.Is(err, graph.ErrInvalidInput) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("%v: want ErrInvalidInput with %q", err, tc.want)
			}
		})
	}
	if f.called("double") != 0 {
		t.Error("a refused request reached a member")
	}
}

func TestRunTurnsAMemberPanicIntoAnError(t *testing.T) {
	f := newFleet()
	m := f.members["double"]
	m.fn = func(context.Context, tensor.Map) (tensor.Map, error) { panic("index out of range") }
	f.members["panics"] = m
	g := mustLoad(t, f, x+"steps: [{name: p, model: panics, inputs: {x: request.x}}]\noutputs: {y: p.y}\n")
	_, err := run(t, g, f, rowsOf([]float64{1, 2, 3}))
	if !errors.Is(err, graph.ErrExecution) || !strings.Contains(err.Error(), `step "p" panicked`) {
		t.Fatalf("%v: want ErrExecution naming step p", err)
	}
}

// TestRunTellsObservers: every step's outcome reaches the observers of the run's
// context, in the order they were added, with the tensors the step was given and
// passed on: answered, skipped by its condition, failed into its fallback, failed.
func TestRunTellsObservers(t *testing.T) {
	f := newFleet()
	g := mustLoad(t, f, x+`steps:
  - {name: d, model: double, inputs: {x: request.x}}
  - {name: big, model: square, inputs: {x: d.y}, when: {source: d.y, max: {above: 100}}}
  - {name: soft, model: fail, inputs: {x: d.y}, on_error: fallback, fallback: {y: [0, 0, 0]}}
joins:
  - {name: out, pick: [big.y, soft.y]}
outputs: {y: out}
`)
	var mu sync.Mutex
	var seen []string
	events := map[string]graph.Event{}
	watch := func(who string) graph.Observer {
		return func(e graph.Event) {
			mu.Lock()
			defer mu.Unlock()
			seen = append(seen, who+":"+e.Step)
			if who == "first" {
				events[e.Step] = e
			}
		}
	}
	ctx := graph.WithObserver(graph.WithObserver(t.Context(), watch("first")), watch("second"))
	if _, err := runMap(ctx, g, tensor.Map{"x": rowsOf([]float64{1, 2, 3})}, f, nil); err != nil {
		t.Fatal(err)
	}
	for step, want := range map[string]graph.Outcome{"d": graph.OutcomeAnswered, "big": graph.OutcomeSkipped, "soft": graph.OutcomeFallback} {
		e, ok := events[step]
		if !ok || e.Outcome != want {
			t.Errorf("step %s: %+v, want outcome %s", step, e, want)
		}
	}
	if e := events["d"]; !slices.Equal(values(t, asMap(e.Inputs), "x"), []float64{1, 2, 3}) || !slices.Equal(values(t, asMap(e.Outputs), "y"), []float64{2, 4, 6}) || e.Took <= 0 {
		t.Errorf("the answered step's tensors: %+v", e)
	}
	if e := events["soft"]; !errors.Is(e.Err, errMemberDown) || !slices.Equal(values(t, asMap(e.Outputs), "y"), []float64{0, 0, 0}) {
		t.Errorf("the fallback's event: %+v", e)
	}
	if e := events["big"]; e.Inputs != nil || e.Outputs != nil {
		t.Errorf("a skipped step carries no tensors: %+v", e)
	}
	for i := 0; i < len(seen); i += 2 {
		if !strings.HasPrefix(seen[i], "first:") || seen[i+1] != "second:"+strings.TrimPrefix(seen[i], "first:") {
			t.Errorf("observers out of order: %v", seen)
			break
		}
	}

	g = mustLoad(t, f, x+"steps:\n  - {name: hard, model: fail, inputs: {x: request.x}}\noutputs: {y: hard.y}\n")
	mu.Lock()
	events = map[string]graph.Event{}
	mu.Unlock()
	if _, err := runMap(ctx, g, tensor.Map{"x": rowsOf([]float64{1, 2, 3})}, f, nil); err == nil {
		t.Fatal("a failing step under the fail policy answered")
	}
	if e := events["hard"]; e.Outcome != graph.OutcomeFailed || !errors.Is(e.Err, errMemberDown) || e.Outputs != nil {
		t.Errorf("the failed step's event: %+v", e)
	}
}
