package main

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
)

// The model graph cases (issue 39): a graph of one step beside its model alone, and
// iris-ensemble beside its two members called one after the other by the client.
const (
	CaseGraphOne      = "graph of one step (iris v1) /predict"
	CaseEnsemble      = "graph iris-ensemble /predict"
	CaseEnsemblePairs = "graph's members by the client: iris v1 then v2 /predict"
)

// graphCases are the cases that need the one-step graph in the repository inferd serves.
var graphCases = []string{CaseGraphOne}

var (
	graphOneBody = []byte(`{"model":"iris-step","data":[5.1,3.5,1.4,0.2]}`)
	ensembleBody = []byte(`{"model":"iris-ensemble","data":[5.1,3.5,1.4,0.2]}`)
	irisV2Item   = []byte(`{"model":"iris","version":"v2","data":[5.1,3.5,1.4,0.2]}`)
)

// graphOne is the one-step graph: iris v1 with iris v1's own steps around it, so its
// /predict answers iris v1's and costs what the graph adds.
const graphOne = `description: iris v1 as a graph of one step, for make bench-http
preprocess:
  - to_tensor:
      features: [sepal_length, sepal_width, petal_length, petal_width]
      dtype: float32
      shape: [4]
graph:
  inputs: [{name: input, dtype: float32, shape: [-1, 4]}]
  steps:
    - {name: v1, model: iris, version: v1, inputs: {input: request.input}}
  outputs: {logits: v1.logits}
postprocess:
  - top_k:
      k: 3
      labels: [setosa, versicolor, virginica]
  - round:
      decimals: 4
`

// graphRepo copies the repository at dir with the one-step graph added as iris-step,
// into a directory removed when the run ends. The repository reads regular files only,
// so the models are copied, not linked.
func (h *harness) graphRepo(dir string) (string, error) {
	out, err := os.MkdirTemp("", "benchhttp-models-")
	if err != nil {
		return "", err
	}
	h.dirs = append(h.dirs, out)
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		target := filepath.Join(out, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
	if err != nil {
		return "", err
	}
	step := filepath.Join(out, "iris-step", "v1")
	if err := os.MkdirAll(step, 0o755); err != nil {
		return "", err
	}
	return out, os.WriteFile(filepath.Join(step, "model.yaml"), []byte(graphOne), 0o644)
}

// pairOp is what a client does without a graph: iris v1's /predict, then v2's.
func pairOp(url string) Op {
	return func(_ context.Context, c *Conn) (int, error) {
		if err := do(c, "POST", url, irisBody, nil); err != nil {
			return 1, err
		}
		return 1, do(c, "POST", url, irisV2Item, nil)
	}
}
