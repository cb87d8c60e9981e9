package step

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"

	"github.com/inferd/inferd/internal/pipeline"
	"github.com/inferd/inferd/internal/tensor"
)

// Kind is the sort of value that passes between two steps.
type Kind int

// The kinds of value a step receives or returns.
const (
	// KindJSON is a request item as the client sent it.
	KindJSON Kind = iota
	// KindTensor is a *tensor.Tensor.
	KindTensor
	// KindOutputs is a tensor.Map of the model's outputs.
	KindOutputs
	// KindLabels is the strings label_map returns.
	KindLabels
	// KindRanked is the label and score list top_k returns.
	KindRanked
)

func (k Kind) String() string {
	switch k {
	case KindJSON:
		return "the request's JSON"
	case KindTensor:
		return "a tensor"
	case KindOutputs:
		return "the model's outputs"
	case KindLabels:
		return "labels"
	case KindRanked:
		return "a top_k list"
	}
	return "an unknown value"
}

// Sig is what is known at load time of the values between two steps.
type Sig struct {
	Kind  Kind
	DType tensor.DType
	// Shape is one item's shape; -1 is a dimension known only at request time.
	Shape []int64
	// Tensors are the model's inputs (KindJSON) or outputs (KindOutputs), with
	// per-item shapes.
	Tensors []pipeline.Tensor
	// DTypeFrom and ShapeFrom name the parameter that set DType and Shape, so a
	// mismatch with the model blames the line to change.
	DTypeFrom, ShapeFrom string
	// Input is the model input a preprocessed tensor feeds.
	Input string
}

// Configured is what every step of this package is: Params returns the parameters
// the step was built with (a struct with json tags), for model metadata.
type Configured interface {
	pipeline.Step
	Params() any
}

// Spec is one configured step: its name and its parameters, a pointer of the type
// Def.Params returns (nil means every parameter takes its default).
type Spec struct {
	Name   string
	Params any
}

// Def describes one kind of step.
type Def struct {
	Name  string
	Stage pipeline.Stage
	// Params returns a pointer to a zero parameter struct for a config decoder to
	// fill. Its fields carry yaml and json tags.
	Params func() any

	check func(p any, at string) error
	build func(p any, in Sig, at string) (pipeline.Step, Sig, error)
	// tensor is how the step runs in a tensor call; nil: as it is (see tensor.go).
	tensor tensorView
}

// define adapts typed check and build functions to a Def.
func define[P any](name string, stage pipeline.Stage, check func(p *P, at string) error, build func(p *P, in Sig, at string) (pipeline.Step, Sig, error)) Def {
	params := func(p any) *P {
		if p == nil {
			return new(P)
		}
		return p.(*P)
	}
	return Def{
		Name:   name,
		Stage:  stage,
		Params: func() any { return new(P) },
		check:  func(p any, at string) error { return checkAll(params(p), at, check) },
		build: func(p any, in Sig, at string) (pipeline.Step, Sig, error) {
			pp := params(p)
			if err := checkAll(pp, at, check); err != nil {
				return nil, Sig{}, err
			}
			return build(pp, in, at)
		},
	}
}

// checkAll checks that every number of p is finite, then runs the step's own check.
func checkAll[P any](p *P, at string, check func(p *P, at string) error) error {
	if err := finite(reflect.ValueOf(p).Elem(), at); err != nil {
		return err
	}
	return check(p, at)
}

// finite returns an error naming the first parameter of v (a parameter struct, or a
// value in it) that is NaN or infinite. YAML spells them .nan and .inf, and no step
// has a use for them: a NaN mean or std would make every answer NaN, an infinite std
// every feature 0, a NaN cut-off every score 0; nor can metadata write them as JSON.
// at is the parameter's path in model.yaml.
func finite(v reflect.Value, at string) error {
	switch v.Kind() {
	case reflect.Float32, reflect.Float64:
		if f := v.Float(); math.IsNaN(f) || math.IsInf(f, 0) {
			return bad(at, "must be a finite number, got %v", f)
		}
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			return finite(v.Elem(), at)
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			if err := finite(v.Index(i), fmt.Sprintf("%s[%d]", at, i)); err != nil {
				return err
			}
		}
	case reflect.Struct:
		for i := range v.NumField() {
			f := v.Type().Field(i)
			if !f.IsExported() {
				continue
			}
			name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
			if name == "" {
				name = strings.ToLower(f.Name)
			}
			if err := finite(v.Field(i), at+"."+name); err != nil {
				return err
			}
		}
	}
	return nil
}

// catalogue lists every step; a function rather than a variable so nothing can
// change the catalogue at run time.
func catalogue() []Def {
	return []Def{
		toTensorDef, standardizeDef, castDef,
		softmaxDef, argmaxDef, labelMapDef, topKDef, thresholdDef, roundDef, squeezeDef,
	}
}

// Names returns the names of the steps of a stage, sorted.
func Names(stage pipeline.Stage) []string {
	var names []string
	for _, d := range catalogue() {
		if d.Stage == stage {
			names = append(names, d.Name)
		}
	}
	slices.Sort(names)
	return names
}

// Lookup returns the step called name for stage. at is the config field of the entry,
// e.g. "preprocess[2]", for the error.
func Lookup(stage pipeline.Stage, name, at string) (Def, error) {
	for _, d := range catalogue() {
		if d.Name != name {
			continue
		}
		if d.Stage != stage {
			return Def{}, bad(at, "%s is a %s step, not a %s step", name, d.Stage, stage)
		}
		return d, nil
	}
	return Def{}, bad(at, "unknown step %q (%s steps: %s)", name, stage, strings.Join(Names(stage), ", "))
}

// Check validates the parameters of a stage's specs on their own, without a model, so
// a config can be vetted when it is discovered, before its artifact loads.
func Check(stage pipeline.Stage, specs []Spec) error {
	for i, s := range specs {
		at := fmt.Sprintf("%s[%d]", stage, i)
		d, err := Lookup(stage, s.Name, at)
		if err != nil {
			return err
		}
		if err := d.check(s.Params, at+"."+s.Name); err != nil {
			return err
		}
	}
	return nil
}

func buildChain(stage pipeline.Stage, specs []Spec, in Sig) ([]pipeline.Step, Sig, error) {
	steps := make([]pipeline.Step, 0, len(specs))
	for i, s := range specs {
		at := fmt.Sprintf("%s[%d]", stage, i)
		d, err := Lookup(stage, s.Name, at)
		if err != nil {
			return nil, Sig{}, err
		}
		st, out, err := d.build(s.Params, in, at+"."+s.Name)
		if err != nil {
			return nil, Sig{}, err
		}
		steps = append(steps, st)
		in = out
	}
	return steps, in, nil
}

// BuildPre builds the preprocess steps for a model with the given inputs (shapes
// per item, without the batch dimension) and checks that what they produce is what
// the model takes. It returns the name of the input the steps feed.
//
// With no specs the steps are the one to_tensor that feeds the model's only input
// (see bare.go).
func BuildPre(specs []Spec, inputs []pipeline.Tensor) ([]pipeline.Step, string, error) {
	specs, err := implicitPre(specs, inputs)
	if err != nil {
		return nil, "", err
	}
	steps, out, err := buildChain(pipeline.StagePreprocess, specs, Sig{Kind: KindJSON, Tensors: inputs})
	if err != nil {
		return nil, "", err
	}
	if out.Kind != KindTensor {
		return nil, "", bad(string(pipeline.StagePreprocess), "the model takes a tensor, but the steps produce %s; start with to_tensor", out.Kind)
	}
	in := inputs[slices.IndexFunc(inputs, func(t pipeline.Tensor) bool { return t.Name == out.Input })]
	if string(out.DType) != in.DType {
		return nil, "", bad(out.DTypeFrom, "makes %s, but model input %q takes %s; change the dtype or add a cast step", out.DType, in.Name, in.DType)
	}
	if !tensor.Compatible(in.Shape, out.Shape) {
		return nil, "", bad(out.ShapeFrom, "makes shape %s per item, but model input %q takes %s per item", tensor.FormatShape(out.Shape), in.Name, tensor.FormatShape(in.Shape))
	}
	return steps, out.Input, nil
}

// BuildPost builds the postprocess steps for a model with the given outputs (shapes
// per item, without the batch dimension).
func BuildPost(specs []Spec, outputs []pipeline.Tensor) ([]pipeline.Step, error) {
	steps, _, err := buildChain(pipeline.StagePostprocess, specs, Sig{Kind: KindOutputs, Tensors: outputs})
	return steps, err
}
