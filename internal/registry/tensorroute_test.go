package registry_test

import (
	"context"
	"testing"

	"github.com/inferd/inferd/internal/pipeline"
	"github.com/inferd/inferd/internal/registry"
)

// signature is a model's tensors, one input and one output, which its tensor calls
// send and get as they are (no steps).
func signature(in, out string) pipeline.Info {
	ins := []pipeline.Tensor{{Name: in, DType: "float32", Shape: []int64{-1, 4}}}
	outs := []pipeline.Tensor{{Name: out, DType: "float32", Shape: []int64{-1, 3}}}
	return pipeline.Info{Inputs: ins, Outputs: outs, TensorInputs: ins, TensorOutputs: outs}
}

// tensorVersion is a version tagged with its name whose model declares info.
func tensorVersion(ver string, info pipeline.Info) registry.VersionSpec {
	return registry.VersionSpec{Version: ver, Loader: registry.LoaderFunc(func(context.Context) (*pipeline.Pipeline, error) {
		return &pipeline.Pipeline{Model: newModel(ver), Info: info}, nil
	})}
}

// TestTensorRouting: a tensor call without a version goes to the rule's main version,
// or to a weighted version of the same signature, never to one whose tensors differ
// from what the model's metadata (the main version's) says; predictions keep the rule.
func TestTensorRouting(t *testing.T) {
	a, b := signature("input", "logits"), signature("input", "probabilities")
	weighted := func(w map[string]float64) registry.Rule {
		return registry.Rule{Strategy: registry.Weighted, Weights: w}
	}
	tests := []struct {
		name    string
		rule    registry.Rule
		specs   []registry.VersionSpec
		tensors []string // the versions tensor calls may go to
		predict []string // the versions predictions go to
	}{
		{"a weighted canary of another signature", weighted(map[string]float64{"v1": 90, "v2": 10}),
			[]registry.VersionSpec{tensorVersion("v1", a), tensorVersion("v2", b)}, []string{"v1"}, []string{"v1", "v2"}},
		{"a weighted canary of the same signature", weighted(map[string]float64{"v1": 50, "v2": 50}),
			[]registry.VersionSpec{tensorVersion("v1", a), tensorVersion("v2", a)}, []string{"v1", "v2"}, []string{"v1", "v2"}},
		{"the heaviest is the main version", weighted(map[string]float64{"v1": 30, "v2": 70}),
			[]registry.VersionSpec{tensorVersion("v1", a), tensorVersion("v2", b)}, []string{"v2"}, []string{"v1", "v2"}},
		{"a tie goes to the later version", weighted(map[string]float64{"v1": 50, "v2": 50}),
			[]registry.VersionSpec{tensorVersion("v1", a), tensorVersion("v2", b)}, []string{"v2"}, []string{"v1", "v2"}},
		{"static", registry.Rule{Strategy: registry.Static, Version: "v1"},
			[]registry.VersionSpec{tensorVersion("v1", a), tensorVersion("v2", a)}, []string{"v1"}, []string{"v1"}},
		{"latest", registry.Rule{},
			[]registry.VersionSpec{tensorVersion("v1", a), tensorVersion("v2", b)}, []string{"v2"}, []string{"v2"}},
		{"the main version failed: another weighted one serves", weighted(map[string]float64{"v1": 90, "v2": 10}),
			[]registry.VersionSpec{{Version: "v1", Loader: failingLoader("broken")}, tensorVersion("v2", b)}, []string{"v2"}, []string{"v2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := started(t, registry.Fixed{{Name: "m", Rule: tt.rule, Versions: tt.specs}})
			tensors, predicts := map[string]bool{}, map[string]bool{}
			for range 400 {
				v, err := r.ResolveTensors("m", "")
				if err != nil {
					t.Fatal(err)
				}
				tensors[v] = true
				route, err := r.RouteTensors("m", "")
				if err != nil {
					t.Fatal(err)
				}
				tensors[route] = true
				v, err = r.Resolve("m", "")
				if err != nil {
					t.Fatal(err)
				}
				predicts[v] = true
			}
			check := func(what string, got map[string]bool, want []string) {
				t.Helper()
				if len(got) != len(want) {
					t.Errorf("%s went to %v, want %v", what, got, want)
				}
				for _, v := range want {
					if !got[v] {
						t.Errorf("%s went to %v, want %v", what, got, want)
					}
				}
			}
			check("tensor calls", tensors, tt.tensors)
			check("predictions", predicts, tt.predict)
		})
	}
}
