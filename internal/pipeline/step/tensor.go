package step

import (
	"context"
	"fmt"

	"github.com/inferd/inferd/internal/pipeline"
)

// A tensor call (the Open Inference Protocol, over REST or gRPC) sends tensors and
// gets tensors back, so that a version answers it with the numbers /predict answers:
// its steps run for it in the same order, but for what only JSON has. to_tensor's
// reading of the request's JSON is done by the client, who sends the tensor it makes
// (its dtype and shape, batch dimension first); top_k's ranked objects and label_map's
// names are left to /predict, and the call gets the tensor they read, every class in
// class order or the class indices. Every other step runs as it is: standardize, cast,
// softmax, argmax, threshold and squeeze, and round, which after top_k rounds the
// scores top_k would rank (and leaves integer ones as they are, as top_k's are).

// tensorView is how a step runs in a tensor call: the step (nil: none runs) and what
// it leaves, built from its parameters, what the same step receives in a /predict
// call (pred) and what it receives in a tensor call (in). A Def without one runs as
// it is, built against in.
type tensorView func(p any, pred, in Sig, at string) (pipeline.Step, Sig, error)

// withTensorView gives d its own tensor view.
func withTensorView[P any](d Def, view func(p *P, pred, in Sig, at string) (pipeline.Step, Sig, error)) Def {
	d.tensor = func(p any, pred, in Sig, at string) (pipeline.Step, Sig, error) {
		pp, _ := p.(*P)
		if pp == nil {
			pp = new(P)
		}
		return view(pp, pred, in, at)
	}
	return d
}

// tensorToTensor: the client sends the tensor to_tensor makes; nothing runs.
func tensorToTensor(p *ToTensorParams, _, in Sig, at string) (pipeline.Step, Sig, error) {
	_, out, err := buildToTensor(p, in, at)
	return nil, out, err
}

// tensorRead is top_k's and label_map's tensor view: the tensor they read, a model
// output picked by name when they are the first postprocess step.
func tensorRead(name string, output string, in Sig, at string) (pipeline.Step, Sig, error) {
	sig, output, err := pickOutput(in, output, at)
	if err != nil {
		return nil, Sig{}, err
	}
	if output == "" {
		return nil, sig, nil
	}
	return &read{outputStep{base{name: name, at: at}, output}}, sig, nil
}

func tensorTopK(p *TopKParams, _, in Sig, at string) (pipeline.Step, Sig, error) {
	return tensorRead("top_k", p.Output, in, at)
}

func tensorLabelMap(p *LabelMapParams, _, in Sig, at string) (pipeline.Step, Sig, error) {
	return tensorRead("label_map", p.Output, in, at)
}

// tensorRound: after top_k, round rounds the scores top_k would have ranked, and
// leaves integer scores alone as it leaves top_k's; elsewhere it runs as it is.
func tensorRound(p *RoundParams, pred, in Sig, at string) (pipeline.Step, Sig, error) {
	if pred.Kind == KindRanked && !in.DType.IsFloat() {
		return nil, in, nil
	}
	return buildRound(p, in, at)
}

// read is top_k or label_map in a tensor call that reads a model output: it hands on
// that output, which the step would have ranked or named.
type read struct{ outputStep }

func (s *read) Apply(ctx context.Context, batch []any) ([]any, error) {
	return each(ctx, batch, func(_ int, v any) (any, error) { return s.input(v) })
}

// reads names the model output a postprocess step reads; "" when it reads the
// previous step's result.
func (s outputStep) reads() string { return s.output }

// buildTensorChain builds specs[from:] for a tensor call. Each step is built as a
// /predict call has it too (pred, which a Def's tensor view may consult), then as the
// tensor call runs it (in). It returns the steps that run, what they leave, and for
// postprocess steps the model output the first one reads.
func buildTensorChain(stage pipeline.Stage, specs []Spec, from int, pred, in Sig) ([]pipeline.Step, Sig, string, error) {
	var steps []pipeline.Step
	output := ""
	for i := from; i < len(specs); i++ {
		s := specs[i]
		at := fmt.Sprintf("%s[%d]", stage, i)
		d, err := Lookup(stage, s.Name, at)
		if err != nil {
			return nil, Sig{}, "", err
		}
		at += "." + s.Name
		ps, predOut, err := d.build(s.Params, pred, at)
		if err != nil {
			return nil, Sig{}, "", err
		}
		if r, ok := ps.(interface{ reads() string }); ok && i == 0 {
			output = r.reads()
		}
		var st pipeline.Step
		var out Sig
		if d.tensor != nil {
			st, out, err = d.tensor(s.Params, pred, in, at)
		} else {
			st, out, err = d.build(s.Params, in, at)
		}
		if err != nil {
			return nil, Sig{}, "", err
		}
		if st != nil {
			steps = append(steps, st)
		}
		pred, in = predOut, out
	}
	return steps, in, output, nil
}

// BuildTensorPre builds the preprocess steps of a tensor call for a model with the
// given inputs (per item, as for BuildPre), which the specs must fit (BuildPre says
// why not); no specs are BuildPre's implicit to_tensor. It returns the steps after
// to_tensor and the tensor the client sends: to_tensor's, per item.
func BuildTensorPre(specs []Spec, inputs []pipeline.Tensor) ([]pipeline.Step, pipeline.Tensor, error) {
	start := Sig{Kind: KindJSON, Tensors: inputs}
	specs, err := implicitPre(specs, inputs)
	if err != nil {
		return nil, pipeline.Tensor{}, err
	}
	if len(specs) == 0 || specs[0].Name != toTensorDef.Name {
		return nil, pipeline.Tensor{}, bad(string(pipeline.StagePreprocess), "the model takes a tensor; start with to_tensor")
	}
	_, entry, _, err := buildTensorChain(pipeline.StagePreprocess, specs[:1], 0, start, start)
	if err != nil {
		return nil, pipeline.Tensor{}, err
	}
	steps, _, _, err := buildTensorChain(pipeline.StagePreprocess, specs, 1, entry, entry)
	if err != nil {
		return nil, pipeline.Tensor{}, err
	}
	return steps, pipeline.Tensor{Name: entry.Input, DType: string(entry.DType), Shape: entry.Shape}, nil
}

// BuildTensorPost builds the postprocess steps of a tensor call for a model with the
// given outputs (per item, as for BuildPost), which the specs must fit. It returns the
// steps and the tensors the call gets, per item: the model's outputs when there are
// no steps, else the one tensor the steps leave, named after the model output they
// read.
func BuildTensorPost(specs []Spec, outputs []pipeline.Tensor) ([]pipeline.Step, []pipeline.Tensor, error) {
	if len(specs) == 0 {
		return nil, outputs, nil
	}
	start := Sig{Kind: KindOutputs, Tensors: outputs}
	steps, out, name, err := buildTensorChain(pipeline.StagePostprocess, specs, 0, start, start)
	if err != nil {
		return nil, nil, err
	}
	if out.Kind != KindTensor || name == "" {
		// Every step of the catalogue leaves a tensor here; a new one that did not
		// would have no answer for a tensor call.
		return nil, nil, bad(string(pipeline.StagePostprocess), "the steps leave %s for a tensor call, not a tensor", out.Kind)
	}
	return steps, []pipeline.Tensor{{Name: name, DType: string(out.DType), Shape: out.Shape}}, nil
}
