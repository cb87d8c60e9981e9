package step

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/inferd/inferd/internal/jsonscan"
	"github.com/inferd/inferd/internal/pipeline"
	"github.com/inferd/inferd/internal/tensor"
)

// ToTensorParams configure to_tensor, which turns a request item's JSON into the
// model's input tensor. Every field may be left out.
type ToTensorParams struct {
	// Input is the model input the tensor feeds; "" means the model's only input.
	Input string `yaml:"input" json:"input,omitempty"`
	// Field is the key of the item object that holds the values ("features" reads
	// data.features); "" means the item itself.
	Field string `yaml:"field" json:"field,omitempty"`
	// Features, when set, lets the values come as an object of named numbers, taken
	// in this order; an array in the same order is accepted too.
	Features []string `yaml:"features" json:"features,omitempty"`
	// DType is float32, float64, int32 or int64; "" means the model input's dtype.
	DType string `yaml:"dtype" json:"dtype,omitempty"`
	// Shape is one item's shape, without the batch dimension; nil means the model
	// input's, or [len(Features)] with Features. [] is a scalar.
	Shape []int64 `yaml:"shape" json:"shape,omitempty"`
}

var toTensorDef = withTensorView(define("to_tensor", pipeline.StagePreprocess, checkToTensor, buildToTensor), tensorToTensor)

func checkToTensor(p *ToTensorParams, at string) error {
	for i, f := range p.Features {
		if f == "" {
			return bad(fmt.Sprintf("%s.features[%d]", at, i), "must not be empty")
		}
		if slices.Index(p.Features, f) < i {
			return bad(fmt.Sprintf("%s.features[%d]", at, i), "%q is listed twice", f)
		}
	}
	if p.DType != "" {
		d, err := tensor.ParseDType(p.DType)
		if err != nil || !slices.Contains(tensor.InputDTypes, d) {
			return bad(at+".dtype", "%q is not one of %s", p.DType, dtypeList())
		}
	}
	for i, d := range p.Shape {
		if d <= 0 {
			return bad(fmt.Sprintf("%s.shape[%d]", at, i), "dimensions must be positive, got %d", d)
		}
	}
	if p.Features != nil && p.Shape != nil && !slices.Equal(p.Shape, []int64{int64(len(p.Features))}) {
		return bad(at+".shape", "%s does not hold the %d named features; use [%d] or leave shape out", tensor.FormatShape(p.Shape), len(p.Features), len(p.Features))
	}
	return nil
}

func dtypeList() string {
	s := make([]string, len(tensor.InputDTypes))
	for i, d := range tensor.InputDTypes {
		s[i] = string(d)
	}
	return strings.Join(s, ", ")
}

func buildToTensor(p *ToTensorParams, in Sig, at string) (pipeline.Step, Sig, error) {
	if in.Kind != KindJSON {
		return nil, Sig{}, bad(at, "to_tensor reads the request's JSON, so it must be the first preprocess step")
	}
	names := make([]string, len(in.Tensors))
	for i, t := range in.Tensors {
		names[i] = t.Name
	}
	var model pipeline.Tensor
	switch i := slices.Index(names, p.Input); {
	case p.Input == "" && len(in.Tensors) == 1:
		model = in.Tensors[0]
	case p.Input == "":
		return nil, Sig{}, bad(at+".input", "required: the model has %d inputs (%s); name one", len(names), strings.Join(names, ", "))
	case i < 0:
		return nil, Sig{}, bad(at+".input", "the model has no input %q (it has %s)", p.Input, strings.Join(names, ", "))
	default:
		model = in.Tensors[i]
	}
	out := Sig{Kind: KindTensor, Input: model.Name, DTypeFrom: at + ".dtype", ShapeFrom: at + ".shape"}
	if p.DType != "" {
		out.DType = tensor.DType(p.DType)
	} else {
		d, err := tensor.ParseDType(model.DType)
		if err != nil || !slices.Contains(tensor.InputDTypes, d) {
			return nil, Sig{}, bad(at+".dtype", "required: model input %q takes %s, which to_tensor does not make; set one of %s and add a cast", model.Name, model.DType, dtypeList())
		}
		out.DType = d
	}
	switch {
	case p.Shape != nil:
		out.Shape = p.Shape
	case p.Features != nil:
		out.Shape = []int64{int64(len(p.Features))}
	case tensor.Static(model.Shape):
		out.Shape = model.Shape
	default:
		return nil, Sig{}, bad(at+".shape", "required: model input %q has dimensions of any size, %s per item; say which to take", model.Name, tensor.FormatShape(model.Shape))
	}
	s := &toTensor{base: base{name: "to_tensor", at: at}, p: *p, dtype: out.DType, shape: out.Shape}
	return s, out, nil
}

type toTensor struct {
	base
	p     ToTensorParams
	dtype tensor.DType
	shape []int64
}

// Params returns the step's configuration, for metadata.
func (s *toTensor) Params() any { return s.p }

func (s *toTensor) Apply(ctx context.Context, batch []any) ([]any, error) {
	return each(ctx, batch, func(i int, v any) (any, error) {
		raw, ok := v.(json.RawMessage)
		if !ok {
			return nil, s.execErr("expected the request's JSON, got %T", v)
		}
		return s.convert(raw)
	})
}

func (s *toTensor) convert(raw json.RawMessage) (*tensor.Tensor, error) {
	if s.p.Field == "" && len(s.shape) == 1 && s.dtype.IsFloat() {
		if vals, ok := s.flatFloats(raw); ok {
			return &tensor.Tensor{DType: s.dtype, Shape: slices.Clone(s.shape), Float: vals}, nil
		}
	}
	return s.decode(raw)
}

// flatFloats reads raw as what most items are, a flat array of exactly the shape's
// count of numbers in range, without building a JSON tree of it (the tree cost more
// than a small model's call). ok is false for anything else, which decode then reads
// and words the errors of.
func (s *toTensor) flatFloats(raw []byte) (vals []float64, ok bool) {
	n := int(s.shape[0])
	i := jsonscan.SkipSpace(raw, 0)
	if i == len(raw) || raw[i] != '[' {
		return nil, false
	}
	vals = make([]float64, 0, n)
	i = jsonscan.SkipSpace(raw, i+1)
	for len(vals) < n {
		end := jsonscan.NumberEnd(raw, i)
		if end < 0 {
			return nil, false
		}
		f, err := strconv.ParseFloat(string(raw[i:end]), 64)
		if err != nil || !s.dtype.InRange(f) {
			return nil, false
		}
		if s.dtype == tensor.Float32 {
			f = float64(float32(f))
		}
		vals = append(vals, f)
		i = jsonscan.SkipSpace(raw, end)
		if len(vals) < n {
			if i == len(raw) || raw[i] != ',' {
				return nil, false
			}
			i = jsonscan.SkipSpace(raw, i+1)
		}
	}
	if i == len(raw) || raw[i] != ']' || jsonscan.SkipSpace(raw, i+1) != len(raw) {
		return nil, false
	}
	return vals, true
}

// decode reads an item of any form through a JSON tree, naming what is wrong.
func (s *toTensor) decode(raw json.RawMessage) (*tensor.Tensor, error) {
	field := "" // the path inside the item; each names the item by its index
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber() // keep 2^53+1 whole for int64 inputs
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, pipeline.Invalid(field, "not valid JSON: %v", err)
	}
	if s.p.Field != "" {
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, pipeline.Invalid(field, "expected an object with the field %q, got %s", s.p.Field, jsonType(v))
		}
		if v, ok = obj[s.p.Field]; !ok {
			return nil, pipeline.Invalid(field, "missing the field %q", s.p.Field)
		}
		field += "." + s.p.Field
	}
	n := int(tensor.Size(s.shape))
	t := &tensor.Tensor{DType: s.dtype, Shape: slices.Clone(s.shape)}
	if s.dtype.IsFloat() {
		t.Float = make([]float64, 0, n)
	} else {
		t.Int = make([]int64, 0, n)
	}
	if obj, ok := v.(map[string]any); ok && s.p.Features != nil {
		return t, s.fromObject(t, obj, field)
	}
	if arr, ok := v.([]any); ok && len(s.shape) > 1 && len(arr) == n && !slices.ContainsFunc(arr, isArray) {
		// a flat array of every value, for shapes that are tedious to nest
		for j, x := range arr {
			if err := s.add(t, x, elemPath(field, []int64{int64(n)}, j)); err != nil {
				return nil, err
			}
		}
		return t, nil
	}
	return t, s.fill(t, v, s.shape, field)
}

func isArray(v any) bool { _, ok := v.([]any); return ok }

func (s *toTensor) fromObject(t *tensor.Tensor, obj map[string]any, field string) error {
	for _, name := range s.p.Features {
		x, ok := obj[name]
		if !ok {
			return pipeline.Invalid(field, "missing the feature %q (features: %s)", name, strings.Join(s.p.Features, ", "))
		}
		if err := s.add(t, x, field+"."+name); err != nil {
			return err
		}
	}
	if len(obj) > len(s.p.Features) {
		// Name the first unknown key in sorted order, so the message is stable.
		keys := make([]string, 0, len(obj))
		for k := range obj {
			if !slices.Contains(s.p.Features, k) {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		return pipeline.Invalid(field, "unknown feature %q (features: %s)", keys[0], strings.Join(s.p.Features, ", "))
	}
	return nil
}

// fill reads v as nested arrays of the given shape.
func (s *toTensor) fill(t *tensor.Tensor, v any, shape []int64, field string) error {
	if len(shape) == 0 {
		return s.add(t, v, field)
	}
	arr, ok := v.([]any)
	what := "numbers"
	if len(shape) > 1 {
		what = "arrays of shape " + tensor.FormatShape(shape[1:])
	}
	if shape[0] == 1 {
		what = strings.Replace(what, "s", "", 1) // "1 number", "1 array of shape [8,8]"
	}
	if !ok {
		if s.p.Features != nil {
			return pipeline.Invalid(field, "expected %d numbers or an object of features (%s), got %s", shape[0], strings.Join(s.p.Features, ", "), jsonType(v))
		}
		return pipeline.Invalid(field, "expected an array of %d %s, got %s", shape[0], what, jsonType(v))
	}
	if int64(len(arr)) != shape[0] {
		return pipeline.Invalid(field, "expected %d %s, got %d", shape[0], what, len(arr))
	}
	for j, x := range arr {
		if err := s.fill(t, x, shape[1:], field+"["+strconv.Itoa(j)+"]"); err != nil {
			return err
		}
	}
	return nil
}

// add appends one JSON number, checked against the dtype.
func (s *toTensor) add(t *tensor.Tensor, v any, field string) error {
	num, ok := v.(json.Number)
	if !ok {
		return pipeline.Invalid(field, "expected a number, got %s", jsonType(v))
	}
	if !s.dtype.IsFloat() {
		if i, err := strconv.ParseInt(string(num), 10, 64); err == nil {
			if !s.dtype.InRange(float64(i)) {
				return pipeline.Invalid(field, "%s is out of range for %s", num, s.dtype)
			}
			t.Int = append(t.Int, i)
			return nil
		}
	}
	f, err := strconv.ParseFloat(string(num), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return pipeline.Invalid(field, "expected a number, got %s", num)
	}
	if err != nil || !s.dtype.InRange(f) {
		return pipeline.Invalid(field, "%s is out of range for %s", num, s.dtype)
	}
	if s.dtype.IsFloat() {
		if s.dtype == tensor.Float32 {
			f = float64(float32(f))
		}
		t.Float = append(t.Float, f)
		return nil
	}
	if f != float64(int64(f)) {
		return pipeline.Invalid(field, "expected a whole number for %s, got %s", s.dtype, num)
	}
	t.Int = append(t.Int, int64(f))
	return nil
}
