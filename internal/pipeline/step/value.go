package step

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/inferd/inferd/internal/pipeline"
	"github.com/inferd/inferd/internal/tensor"
)

// base carries what every step needs to describe itself and its errors.
type base struct {
	name string
	// at is the step's place in the config, e.g. "postprocess[1].label_map", for
	// execution errors that an operator must trace back to the config.
	at string
}

func (b base) Name() string { return b.name }

// each applies f to every item of batch, stopping at the first error.
func each(ctx context.Context, batch []any, f func(i int, v any) (any, error)) ([]any, error) {
	out := make([]any, len(batch))
	for i, v := range batch {
		if i%256 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		r, err := f(i, v)
		if err != nil {
			return nil, pipeline.AtItem(i, err)
		}
		out[i] = r
	}
	return out, nil
}

// execErr reports model output a postprocess step cannot handle, or a value of the
// wrong sort between steps: neither is the client's fault.
func (b base) execErr(format string, args ...any) error {
	return fmt.Errorf("%w: %s: %s", pipeline.ErrExecution, b.at, fmt.Sprintf(format, args...))
}

// tensorOf returns v as a tensor, or an execution error: the chain was checked at
// load time, so anything else is a bug, not bad input.
func (b base) tensorOf(v any) (*tensor.Tensor, error) {
	t, ok := v.(*tensor.Tensor)
	if !ok {
		return nil, b.execErr("expected a tensor, got %T", v)
	}
	if err := t.Check(); err != nil {
		return nil, b.execErr("%v", err)
	}
	return t, nil
}

// notFinite is the error of a step given NaN or an infinity it cannot use. A model
// returns one for finite inputs only when they are too large for its arithmetic (3e38
// through float32 weights, 1e308 standardised), so it is the input's fault: a 400
// invalid_input naming the model output, as pipeline.encode's for a result that is
// not finite, never a 500 a client could cause at will.
func (s outputStep) notFinite(x float64) error {
	from := "the value " + s.at + " receives"
	if s.output != "" {
		from = fmt.Sprintf("model output %q", s.output)
	}
	return pipeline.Invalid("", "%s is %v, not a finite number (%s cannot use it): the input is too large for the model's arithmetic; send values of the size the model was trained on", from, x, s.at)
}

// outputStep is embedded by postprocess steps that can take one model output.
type outputStep struct {
	base
	output string // the model output to read; "" when the step reads the previous value
}

// input returns the tensor the step works on: a model output or the previous value.
func (s outputStep) input(v any) (*tensor.Tensor, error) {
	if s.output == "" {
		return s.tensorOf(v)
	}
	m, ok := v.(tensor.Map)
	if !ok {
		return nil, s.execErr("expected the model's outputs, got %T", v)
	}
	t := m[s.output]
	if t == nil {
		return nil, s.execErr("the model returned no output %q", s.output)
	}
	return s.tensorOf(t)
}

// pickOutput resolves a postprocess step's input at load time: the model output
// named output when the step follows the model directly, else the previous step's
// value. It returns the signature of the tensor the step reads and the output name
// the step must pick at request time.
func pickOutput(in Sig, output, at string) (Sig, string, error) {
	if in.Kind != KindOutputs {
		if output != "" {
			return Sig{}, "", bad(at+".output", "only the first postprocess step reads a model output; this step reads the previous step's result")
		}
		return in, "", nil
	}
	names := make([]string, len(in.Tensors))
	for i, t := range in.Tensors {
		names[i] = t.Name
	}
	if output == "" {
		if len(in.Tensors) != 1 {
			return Sig{}, "", bad(at+".output", "required: the model has %d outputs (%s); name one", len(names), strings.Join(names, ", "))
		}
		output = names[0]
	}
	for _, t := range in.Tensors {
		if t.Name == output {
			d, err := tensor.ParseDType(t.DType)
			if err != nil {
				return Sig{}, "", bad(at+".output", "model output %q has dtype %s, which no step handles", output, t.DType)
			}
			return Sig{Kind: KindTensor, DType: d, Shape: t.Shape}, output, nil
		}
	}
	return Sig{}, "", bad(at+".output", "the model has no output %q (it has %s)", output, strings.Join(names, ", "))
}

// needTensor checks at load time that a step receives a tensor, optionally a float
// one, with at least minRank dimensions.
func needTensor(in Sig, at, what string, float bool, minRank int) error {
	if in.Kind != KindTensor {
		if in.Kind == KindJSON {
			return bad(at, "%s needs a tensor, but receives the request's JSON; put to_tensor before it", what)
		}
		return bad(at, "%s needs a tensor, but receives %s", what, in.Kind)
	}
	if float && !in.DType.IsFloat() {
		return bad(at, "%s needs float values, but receives %s", what, in.DType)
	}
	if len(in.Shape) < minRank {
		return bad(at, "%s needs a tensor with at least %d dimension(s) per item, but receives shape %s", what, minRank, tensor.FormatShape(in.Shape))
	}
	return nil
}

// jsonType names the JSON type of a decoded value for error messages.
func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number, float64:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

// elemPath names element flat of a tensor of shape under field: data[2] or
// data[1][0].
func elemPath(field string, shape []int64, flat int) string {
	if len(shape) == 0 {
		return field
	}
	idx := make([]int64, len(shape))
	f := int64(flat)
	for d := len(shape) - 1; d >= 0; d-- {
		if shape[d] > 0 {
			idx[d] = f % shape[d]
			f /= shape[d]
		}
	}
	var b strings.Builder
	b.WriteString(field)
	for _, i := range idx {
		b.WriteByte('[')
		b.WriteString(strconv.FormatInt(i, 10))
		b.WriteByte(']')
	}
	return b.String()
}

// formatNumber prints a number in error messages as a person wrote it.
func formatNumber(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }
