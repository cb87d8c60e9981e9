package step

import (
	"slices"
	"strings"

	"github.com/inferd/inferd/internal/pipeline"
	"github.com/inferd/inferd/internal/tensor"
)

// A version whose model.yaml lists no preprocess steps (a two-line model.yaml:
// backend and artifact) still serves: /predict's data is the model's one input, as
// nested arrays of its per-item shape in its dtype, which is what a to_tensor step
// left at its defaults reads. The step is made here with the model's dtype and shape
// written into it, so that model metadata, which lists the steps that run, says what
// data the version takes. A model that to_tensor's defaults cannot feed (several
// inputs, a dimension of any size, a dtype JSON numbers do not make) is refused at
// load, saying which step to list.

// implicitPre returns specs, or when there are none the to_tensor step that feeds
// the model's one input.
func implicitPre(specs []Spec, inputs []pipeline.Tensor) ([]Spec, error) {
	if len(specs) > 0 {
		return specs, nil
	}
	at := string(pipeline.StagePreprocess)
	if len(inputs) != 1 {
		names := make([]string, len(inputs))
		for i, in := range inputs {
			names[i] = in.Name
		}
		return nil, bad(at, "required: the model has %d inputs (%s), and without steps /predict's data feeds a model of one; list steps starting with to_tensor, naming the input it feeds", len(inputs), strings.Join(names, ", "))
	}
	in := inputs[0]
	d, err := tensor.ParseDType(in.DType)
	if err != nil || !slices.Contains(tensor.InputDTypes, d) {
		return nil, bad(at, "required: model input %q takes %s, which /predict's JSON numbers cannot be read as; list steps starting with to_tensor (dtype one of %s) and a cast", in.Name, in.DType, dtypeList())
	}
	if !tensor.Static(in.Shape) {
		return nil, bad(at, "required: model input %q has dimensions of any size, %s per item, so /predict cannot tell which to take; list a to_tensor step with the shape, e.g. preprocess: [{to_tensor: {shape: %s}}]", in.Name, tensor.FormatShape(in.Shape), example(in.Shape))
	}
	return []Spec{{Name: toTensorDef.Name, Params: &ToTensorParams{DType: string(d), Shape: slices.Clone(in.Shape)}}}, nil
}

// example is shape with every dimension of any size given one, for an error's
// example of a to_tensor shape.
func example(shape []int64) string {
	s := slices.Clone(shape)
	for i, d := range s {
		if d < 0 {
			s[i] = 1
		}
	}
	return tensor.FormatShape(s)
}
