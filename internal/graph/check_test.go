package graph_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/inferd/inferd/internal/graph"
	"github.com/inferd/inferd/internal/pipeline"
)

// x is the request input of most test graphs.
const x = "inputs: [{name: x, dtype: float64, shape: [-1, 3]}]\n"

func load(t *testing.T, f *fleet, src string) (*graph.Graph, error) {
	t.Helper()
	spec, err := graph.Parse([]byte(src))
	if err != nil {
		return nil, err
	}
	return graph.Check(spec, f)
}

func TestLoadErrors(t *testing.T) {
	for _, tc := range []struct {
		name, src, want string
	}{
		{"not yaml", "inputs: [", "graph: "},
		{"empty", "", "graph: empty"},
		{"unknown field", x + "artifact: model.onnx\n", "graph.artifact: unknown field"},
		{"no inputs", "steps: [{name: a, model: double, inputs: {x: request.x}}]\noutputs: {y: a.y}\n", "graph.inputs: missing"},
		{"no steps", x + "outputs: {y: request.x}\n", "graph.steps: missing"},
		{"no outputs", x + "steps: [{name: a, model: double, inputs: {x: request.x}}]\n", "graph.outputs: missing"},
		{"bad dtype", "inputs: [{name: x, dtype: float, shape: [-1, 3]}]\nsteps: [{name: a, model: double, inputs: {x: request.x}}]\noutputs: {y: a.y}\n", `graph.inputs[0].dtype: unknown dtype "float"`},
		{"no batch dimension", "inputs: [{name: x, dtype: float64, shape: []}]\nsteps: [{name: a, model: double, inputs: {x: request.x}}]\noutputs: {y: a.y}\n", "graph.inputs[0].shape: needs the batch dimension"},
		{"bad dimension", "inputs: [{name: x, dtype: float64, shape: [-1, 0]}]\nsteps: [{name: a, model: double, inputs: {x: request.x}}]\noutputs: {y: a.y}\n", "graph.inputs[0].shape[1]: 0: a dimension"},
		{"input twice", "inputs: [{name: x, dtype: float64, shape: [-1, 3]}, {name: x, dtype: float64, shape: [-1, 3]}]\nsteps: [{name: a, model: double, inputs: {x: request.x}}]\noutputs: {y: a.y}\n", `graph.inputs[1].name: "x" is also graph.inputs[0].name`},
		{"step without inputs", x + "steps: [{name: a, model: double}]\noutputs: {y: a.y}\n", "graph.steps[0].inputs: missing"},
		{"bad step name", x + "steps: [{name: 'a b', model: double, inputs: {x: request.x}}]\noutputs: {y: a.y}\n", `graph.steps[0].name: "a b": a step or join name holds`},
		{"dotted step name", x + "steps: [{name: a.b, model: double, inputs: {x: request.x}}]\noutputs: {y: request.x}\n", `graph.steps[0].name: "a.b": a step or join name`},
		{"bad model name", x + "steps: [{name: a, model: ../etc, inputs: {x: request.x}}]\noutputs: {y: a.y}\n", `graph.steps[0].model: "../etc": a model or version name`},
		{"dotted version", x + "steps: [{name: a, model: double, version: '1.2', inputs: {x: request.x}}]\noutputs: {y: a.y}\n", "graph.steps[0].version: model double version 1.2: no such member: double/1.2"},
		{"bad tensor name", "inputs: [{name: 'a b', dtype: float64, shape: [-1, 3]}]\nsteps: [{name: a, model: double, inputs: {x: request.x}}]\noutputs: {y: a.y}\n", `graph.inputs[0].name: "a b": a tensor name`},
		{"reserved name", x + "steps: [{name: request, model: double, inputs: {x: request.x}}]\noutputs: {y: request.x}\n", `graph.steps[0].name: "request" is reserved`},
		{"name twice", x + "steps: [{name: a, model: double, inputs: {x: request.x}}]\njoins: [{name: a, pick: [a.y, request.x]}]\noutputs: {y: a.y}\n", `graph.joins[0].name: "a" is also the name of graph.steps[0]`},
		{"missing model", x + "steps: [{name: a, model: nope, inputs: {x: request.x}}]\noutputs: {y: a.y}\n", "graph.steps[0].model: model nope: no such member: nope"},
		{"missing version", x + "steps: [{name: a, model: iris, version: v9, inputs: {input: request.x}}]\noutputs: {y: a.probabilities}\n", "graph.steps[0].version: model iris version v9: no such member"},
		{"untyped member", x + "steps: [{name: a, model: echo, inputs: {x: request.x}}]\noutputs: {y: a.y}\n", "graph.steps[0].model: model echo declares no tensors"},
		{"unknown request tensor", x + "steps: [{name: a, model: double, inputs: {x: request.z}}]\noutputs: {y: a.y}\n", `graph.steps[0].inputs.x: "request.z": the request has no such tensor; its inputs are x`},
		{"unknown step", x + "steps: [{name: a, model: double, inputs: {x: b.y}}]\noutputs: {y: a.y}\n", `graph.steps[0].inputs.x: "b.y" names no step or join`},
		{"unknown output", x + "steps: [{name: a, model: double, inputs: {x: request.x}}, {name: b, model: double, inputs: {x: a.z}}]\noutputs: {y: b.y}\n", `graph.steps[1].inputs.x: "a.z": model double has no output "z"; its outputs are y`},
		{"step without output name", x + "steps: [{name: a, model: double, inputs: {x: request.x}}]\noutputs: {y: a}\n", `graph.outputs.y: "a": name one of step a's outputs`},
		{"join with output name", x + "steps: [{name: a, model: double, inputs: {x: request.x}}]\njoins: [{name: m, mean: [a.y, request.x]}]\noutputs: {y: m.y}\n", `graph.outputs.y: "m.y": m is a join`},
		{"unknown member input", x + "steps: [{name: a, model: double, inputs: {x: request.x, z: request.x}}]\noutputs: {y: a.y}\n", `graph.steps[0].inputs.z: model double has no input "z"; its inputs are x`},
		{"member input without source", x + "steps: [{name: a, model: add, inputs: {a: request.x}}]\noutputs: {y: a.sum}\n", `graph.steps[0].inputs: model add's input "b" has no source`},
		{"dtype mismatch", x + "steps: [{name: a, model: iris, version: v1, inputs: {input: request.x}}]\noutputs: {y: a.logits}\n", "graph.steps[0].inputs.input: request.x is float64, the input takes float32"},
		{"shape mismatch", "inputs: [{name: x, dtype: float64, shape: [-1, 4]}]\nsteps: [{name: a, model: double, inputs: {x: request.x}}]\noutputs: {y: a.y}\n", "graph.steps[0].inputs.x: request.x has shape [-1,4], the input takes [-1,3]"},
		{"cycle", x + "steps:\n  - {name: a, model: double, inputs: {x: c.y}}\n  - {name: b, model: double, inputs: {x: a.y}}\n  - {name: c, model: double, inputs: {x: b.y}}\noutputs: {y: c.y}\n", "graph.steps[0]: cycle: a -> c -> b -> a"},
		{"self loop", x + "steps: [{name: a, model: double, inputs: {x: a.y}}]\noutputs: {y: a.y}\n", "graph.steps[0]: cycle: a -> a"},
		{"cycle through a join", x + "steps: [{name: a, model: double, inputs: {x: m}}]\njoins: [{name: m, mean: [a.y, request.x]}]\noutputs: {y: m}\n", "graph.steps[0]: cycle: a -> m -> a"},
		{"two statistics", x + "steps: [{name: a, model: double, inputs: {x: request.x}, when: {source: request.x, max: {below: 1}, min: {below: 1}}}]\noutputs: {y: a.y}\n", "graph.steps[0].when: names both max and min"},
		{"no statistic", x + "steps: [{name: a, model: double, inputs: {x: request.x}, when: {source: request.x}}]\noutputs: {y: a.y}\n", "graph.steps[0].when: needs a statistic"},
		{"no comparison", x + "steps: [{name: a, model: double, inputs: {x: request.x}, when: {source: request.x, max: {}}}]\noutputs: {y: a.y}\n", "graph.steps[0].when.max: needs a comparison"},
		{"unknown comparison", x + "steps: [{name: a, model: double, inputs: {x: request.x}, when: {source: request.x, max: {under: 1}}}]\noutputs: {y: a.y}\n", "graph.steps[0].when.max.under: unknown field"},
		{"comparison not a number", x + "steps: [{name: a, model: double, inputs: {x: request.x}, when: {source: request.x, max: {below: high}}}]\noutputs: {y: a.y}\n", `graph.steps[0].when.max.below: expected a number, got "high"`},
		{"empty range", x + "steps: [{name: a, model: double, inputs: {x: request.x}, when: {source: request.x, max: {above: 2, below: 1}}}]\noutputs: {y: a.y}\n", "graph.steps[0].when.max: above 2 and below 1: no value is both"},
		{"unknown condition source", x + "steps: [{name: a, model: double, inputs: {x: request.x}, when: {source: b.y, max: {below: 1}}}]\noutputs: {y: a.y}\n", `graph.steps[0].when.source: "b.y" names no step`},
		{"argmax of a vector", x + "steps: [{name: l, model: label, inputs: {x: request.x}}, {name: a, model: double, inputs: {x: request.x}, when: {source: l.label, argmax: {equals: 1}}}]\njoins: [{name: p, pick: [a.y, request.x]}]\noutputs: {y: p}\n", "graph.steps[1].when.argmax: l.label has shape [-1]: argmax needs a row"},
		{"bad policy", x + "steps: [{name: a, model: double, inputs: {x: request.x}, on_error: retry}]\noutputs: {y: a.y}\n", `graph.steps[0].on_error: "retry" is not a policy`},
		{"fallback without policy", x + "steps: [{name: a, model: double, inputs: {x: request.x}, fallback: {y: [0, 0, 0]}}]\noutputs: {y: a.y}\n", "graph.steps[0].fallback: given without on_error: fallback"},
		{"policy without fallback", x + "steps: [{name: a, model: double, inputs: {x: request.x}, on_error: fallback}]\noutputs: {y: a.y}\n", "graph.steps[0].fallback: missing"},
		{"fallback of the wrong shape", x + "steps: [{name: a, model: double, inputs: {x: request.x}, on_error: fallback, fallback: {y: [0, 0]}}]\noutputs: {y: a.y}\n", "graph.steps[0].fallback.y: a value of shape [2], but one row of y is [3]"},
		{"fallback ragged", x + "steps: [{name: a, model: double, inputs: {x: request.x}, on_error: fallback, fallback: {y: [[0], [0, 1]]}}]\noutputs: {y: a.y}\n", "graph.steps[0].fallback.y[1]: shape [2] unlike the elements before it, [1]"},
		{"fallback for no output", x + "steps: [{name: a, model: double, inputs: {x: request.x}, on_error: fallback, fallback: {z: [0, 0, 0]}}]\noutputs: {y: a.y}\n", `graph.steps[0].fallback.z: model double has no output "z"`},
		{"fallback not whole", x + "steps: [{name: a, model: label, inputs: {x: request.x}, on_error: fallback, fallback: {label: 0.5}}]\noutputs: {y: a.label}\n", "graph.steps[0].fallback.label: element 0, 0.5, is not a int64"},
		{"join of one source", x + "steps: [{name: a, model: double, inputs: {x: request.x}}]\njoins: [{name: m, mean: [a.y]}]\noutputs: {y: m}\n", "graph.joins[0].mean: needs at least two sources"},
		{"join of two kinds", x + "steps: [{name: a, model: double, inputs: {x: request.x}}]\njoins: [{name: m, mean: [a.y, request.x], pick: [a.y, request.x]}]\noutputs: {y: m}\n", "graph.joins[0]: names both mean and pick"},
		{"join of no kind", x + "steps: [{name: a, model: double, inputs: {x: request.x}}]\njoins: [{name: m}]\noutputs: {y: m}\n", "graph.joins[0]: needs one of mean"},
		{"join dtype mismatch", x + "steps: [{name: a, model: double, inputs: {x: request.x}}, {name: l, model: label, inputs: {x: request.x}}]\njoins: [{name: p, pick: [a.y, l.label]}]\noutputs: {y: p}\n", "graph.joins[0].pick[1]: l.label is int64, a.y is float64"},
		{"mean of integers", x + "steps: [{name: a, model: label, inputs: {x: request.x}}, {name: b, model: label, inputs: {x: request.x}}]\njoins: [{name: m, mean: [a.label, b.label]}]\noutputs: {y: m}\n", "graph.joins[0].mean: mean of int64 tensors"},
		{"mean shape mismatch", "inputs: [{name: x, dtype: float64, shape: [-1, 3]}, {name: w, dtype: float64, shape: [-1, 4]}]\nsteps: [{name: a, model: double, inputs: {x: request.x}}]\njoins: [{name: m, mean: [a.y, request.w]}]\noutputs: {y: m}\n", "graph.joins[0].mean[1]: request.w has shape [-1,4], a.y has [-1,3]: mean needs one shape"},
		{"weights miscounted", x + "steps: [{name: a, model: double, inputs: {x: request.x}}]\njoins: [{name: m, weighted_mean: {sources: [a.y, request.x], weights: [1]}}]\noutputs: {y: m}\n", "graph.joins[0].weighted_mean.weights: 1 weights for 2 sources"},
		{"weight not positive", x + "steps: [{name: a, model: double, inputs: {x: request.x}}]\njoins: [{name: m, weighted_mean: {sources: [a.y, request.x], weights: [1, 0]}}]\noutputs: {y: m}\n", "graph.joins[0].weighted_mean.weights[1]: 0: a weight must be above 0"},
		{"concat along the batch", x + "steps: [{name: a, model: double, inputs: {x: request.x}}]\njoins: [{name: c, concat: {sources: [a.y, request.x], axis: 0}}]\noutputs: {y: c}\n", "graph.joins[0].concat.axis: 0: must be a whole number of 1 or more"},
		{"concat without axis", x + "steps: [{name: a, model: double, inputs: {x: request.x}}]\njoins: [{name: c, concat: {sources: [a.y, request.x]}}]\noutputs: {y: c}\n", "graph.joins[0].concat.axis: missing"},
		{"concat rank mismatch", "inputs: [{name: x, dtype: float64, shape: [-1, 3]}, {name: w, dtype: float64, shape: [-1, 3, 1]}]\nsteps: [{name: a, model: double, inputs: {x: request.x}}]\njoins: [{name: c, concat: {sources: [a.y, request.w], axis: 1}}]\noutputs: {y: c}\n", "graph.joins[0].concat.sources[1]: request.w has shape [-1,3,1], a.y has [-1,3]: concat along axis 1 needs tensors of one rank"},
		{"concat dtype mismatch", x + "steps: [{name: a, model: double, inputs: {x: request.x}}, {name: l, model: label, inputs: {x: request.x}}]\njoins: [{name: c, concat: {sources: [a.y, l.label], axis: 1}}]\noutputs: {y: c}\n", "graph.joins[0].concat.sources[1]: l.label is int64"},
		{"concat axis beyond rank", x + "steps: [{name: a, model: double, inputs: {x: request.x}}]\njoins: [{name: c, concat: {sources: [a.y, request.x], axis: 2}}]\noutputs: {y: c}\n", "concat along axis 2 needs tensors of one rank above 2"},
		{"concat other dimension", "inputs: [{name: x, dtype: float64, shape: [-1, 3]}, {name: w, dtype: float64, shape: [2, 3]}, {name: v, dtype: float64, shape: [4, 3]}]\nsteps: [{name: a, model: double, inputs: {x: request.x}}]\njoins: [{name: c, concat: {sources: [request.w, a.y, request.v], axis: 1}}]\noutputs: {y: c}\n", "graph.joins[0].concat.sources[2]: request.v has shape [4,3], request.w has [2,3]: concat along axis 1 needs the other dimensions equal"},
		{"concat of any batch", "inputs: [{name: x, dtype: float64, shape: [-1, 3]}, {name: w, dtype: float64, shape: [2, 3]}]\nsteps: [{name: a, model: double, inputs: {x: request.x}}]\njoins: [{name: c, concat: {sources: [request.w, a.y, request.x], axis: 1}}]\noutputs: {y: c}\n", ""},
		{"mean of a skippable step", x + "steps: [{name: a, model: double, inputs: {x: request.x}, when: {source: request.x, max: {below: 1}}}]\njoins: [{name: m, mean: [a.y, request.x]}]\noutputs: {y: m}\n", "graph.joins[0].mean[0]: a.y may be absent, and mean needs every source"},
		{"output of a skippable step", x + "steps: [{name: a, model: double, inputs: {x: request.x}, when: {source: request.x, max: {below: 1}}}]\noutputs: {y: a.y}\n", "graph.outputs.y: a.y may be absent (step a has a when)"},
		{"output downstream of a skippable step", x + "steps: [{name: a, model: double, inputs: {x: request.x}, when: {source: request.x, max: {below: 1}}}, {name: b, model: double, inputs: {x: a.y}}]\noutputs: {y: b.y}\n", "graph.outputs.y: b.y may be absent (it depends on step a, which has a when)"},
		{"pick of only skippable steps", x + "steps: [{name: a, model: double, inputs: {x: request.x}, when: {source: request.x, max: {below: 1}}}, {name: b, model: inc, inputs: {x: request.x}, when: {source: request.x, max: {above: 1}}}]\njoins: [{name: p, pick: [a.y, b.y]}]\noutputs: {y: p}\n", "graph.outputs.y: p may be absent"},
		{"output given twice", x + "steps: [{name: a, model: double, inputs: {x: request.x}}]\noutputs: {y: a.y, y: a.y}\n", "graph.outputs.y: given twice"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := load(t, newFleet(), tc.src)
			if err == nil {
				if tc.want == "" {
					return // a valid graph among the faults: the check must not refuse it
				}
				t.Fatalf("loaded; want an error with %q", tc.want)
			}
			if tc.want == "" {
				t.Fatalf("want no error, got %v", err)
			}
			if !errors.Is(err, graph.ErrInvalidGraph) {
				t.Errorf("%v is not ErrInvalidGraph", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q\nwant it to contain %q", err, tc.want)
			}
		})
	}
}

func TestCheckKeepsMemberErrors(t *testing.T) {
	_, err := load(t, newFleet(), x+"steps: [{name: a, model: nope, inputs: {x: request.x}}]\noutputs: {y: a.y}\n")
	if !errors.Is(err, errNoMember) || !errors.Is(err, graph.ErrInvalidGraph) {
		t.Fatalf("%v: want both ErrInvalidGraph and the member's error", err)
	}
}

func TestCheckTypesOutputs(t *testing.T) {
	g, err := load(t, newFleet(), "inputs: [{name: x, dtype: float64, shape: [-1, 3]}, {name: w, dtype: float64, shape: [-1, 2]}]\n"+
		"steps:\n  - {name: a, model: double, inputs: {x: request.x}}\n  - {name: l, model: label, inputs: {x: a.y}}\n"+
		"joins: [{name: c, concat: {sources: [a.y, request.w], axis: 1}}, {name: m, mean: [a.y, request.x]}]\n"+
		"outputs: {wide: c, label: l.label, mean: m}\n")
	if err != nil {
		t.Fatal(err)
	}
	want := []pipeline.Tensor{
		{Name: "wide", DType: "float64", Shape: []int64{-1, 5}},
		{Name: "label", DType: "int64", Shape: []int64{-1}},
		{Name: "mean", DType: "float64", Shape: []int64{-1, 3}},
	}
	got := g.Outputs()
	if len(got) != len(want) {
		t.Fatalf("outputs %v, want %v", got, want)
	}
	for i := range want {
		if got[i].Name != want[i].Name || got[i].DType != want[i].DType || tensorShape(got[i].Shape) != tensorShape(want[i].Shape) {
			t.Errorf("output %d is %v, want %v", i, got[i], want[i])
		}
	}
}
