package grpcapi

import (
	"context"
	"fmt"
	"strconv"

	pb "github.com/inferd/inferd/gen/inference"
	"github.com/inferd/inferd/internal/oip"
	"github.com/inferd/inferd/internal/problem"
	"github.com/inferd/inferd/internal/registry"
	"github.com/inferd/inferd/internal/tensor"
)

// ModelInfer runs one inference through the registry, as POST /v2/.../infer does: the
// same routing, dynamic batcher (REST and gRPC calls to a version coalesce), limits
// and messages. Inputs come as typed contents or raw contents; the answer is raw when
// the inputs were (as Triton answers its own client), or when the request asks with
// the parameter binary_data_output (or an output with binary_data), else typed.
func (s *Server) ModelInfer(ctx context.Context, req *pb.ModelInferRequest) (*pb.ModelInferResponse, error) {
	if err := named(req.ModelName, "model_name"); err != nil {
		return nil, err
	}
	ins, err := inputs(req)
	if err != nil {
		return nil, oip.Refusal(err)
	}
	outs, raw, err := outputs(req)
	if err != nil {
		return nil, oip.Refusal(err)
	}
	inf, err := s.reg.Infer(ctx, registry.InferRequest{Model: req.ModelName, Version: req.ModelVersion, Inputs: ins, Outputs: outs, MaxRows: s.opts.MaxBatchItems})
	if err != nil {
		return nil, oip.Refusal(problem.InPath(err))
	}
	return s.answer(req, inf, raw)
}

// inputs reads the request's tensors: every one from raw_input_contents, or every one
// from its contents.
func inputs(req *pb.ModelInferRequest) ([]registry.Named, error) {
	if len(req.Inputs) == 0 {
		return nil, oip.Invalid("inputs is empty: send at least one input tensor")
	}
	raw := req.RawInputContents
	if len(raw) > 0 && len(raw) != len(req.Inputs) {
		return nil, oip.Invalid(fmt.Sprintf("raw_input_contents has %d entries for %d inputs; send one entry per input, in the order of inputs, or none and every input's contents", len(raw), len(req.Inputs)))
	}
	out := make([]registry.Named, len(req.Inputs))
	for i, in := range req.Inputs {
		if in.Name == "" {
			return nil, oip.Invalid(fmt.Sprintf("inputs[%d].name must be a non-empty string", i))
		}
		where := "input " + strconv.Quote(in.Name) // %q's spelling, without fmt's cost per call
		d, ok := oip.DType(in.Datatype)
		if !ok {
			if in.Datatype == "" {
				return nil, oip.Invalid(fmt.Sprintf("%s: datatype must be one of %s", where, oip.Datatypes))
			}
			return nil, oip.Invalid(fmt.Sprintf("%s: datatype %q is not one of %s", where, in.Datatype, oip.Datatypes))
		}
		size, err := oip.CheckShape(where, in.Shape)
		if err != nil {
			return nil, err
		}
		var t *tensor.Tensor
		switch {
		case len(raw) > 0 && in.Contents != nil:
			return nil, oip.Invalid(fmt.Sprintf("%s has both contents and raw_input_contents; send its values one way (raw_input_contents for every input, or contents for every input)", where))
		case len(raw) > 0:
			// The request's raw contents are its own (Codec and the protobuf runtime copy
			// them out of the transport's buffers): the tensor may keep them.
			t, err = oip.DecodeRawOwned(where+" (raw_input_contents["+strconv.Itoa(i)+"])", d, in.Shape, size, raw[i])
		case in.Contents == nil:
			return nil, oip.Invalid(fmt.Sprintf("%s has no contents: send its values in contents (the field of its datatype) or every input's in raw_input_contents", where))
		default:
			t, err = fromContents(where, d, in.Datatype, in.Shape, size, in.Contents)
		}
		if err != nil {
			return nil, err
		}
		out[i] = registry.Named{Name: in.Name, Tensor: t}
	}
	return out, nil
}

// outputs reads the outputs asked for and whether the answer is raw.
func outputs(req *pb.ModelInferRequest) (names []string, raw bool, err error) {
	raw = len(req.RawInputContents) > 0
	if raw, err = boolParam("parameters", req.Parameters, "binary_data_output", raw); err != nil {
		return nil, false, err
	}
	asked := make(map[string]int, len(req.Outputs))
	for i, o := range req.Outputs {
		if o.Name == "" {
			return nil, false, oip.Invalid(fmt.Sprintf("outputs[%d].name must be a non-empty string", i))
		}
		if j, twice := asked[o.Name]; twice {
			return nil, false, oip.Invalid(fmt.Sprintf("outputs[%d] asks for output %q, as outputs[%d] does; ask for each output once", i, o.Name, j))
		}
		asked[o.Name] = i
		if raw, err = boolParam(fmt.Sprintf("outputs[%d].parameters", i), o.Parameters, "binary_data", raw); err != nil {
			return nil, false, err
		}
		names = append(names, o.Name)
	}
	return names, raw, nil
}

// boolParam reads an optional bool parameter; true when it is, else was.
func boolParam(where string, params map[string]*pb.InferParameter, name string, was bool) (bool, error) {
	p, ok := params[name]
	if !ok {
		return was, nil
	}
	b, ok := p.GetParameterChoice().(*pb.InferParameter_BoolParam)
	if !ok {
		return false, oip.Invalid(fmt.Sprintf("%s: %s must be a bool_param", where, name))
	}
	return was || b.BoolParam, nil
}

// answer encodes the outputs: raw contents, or typed contents unless an output's
// datatype has none (FP16), which makes the whole answer raw, since raw contents
// stand for every output or none.
func (s *Server) answer(req *pb.ModelInferRequest, inf registry.Inference, raw bool) (*pb.ModelInferResponse, error) {
	size := 0
	for _, o := range inf.Outputs {
		raw = raw || o.Tensor.DType == tensor.Float16
		size += oip.RawSize(o.Tensor)
	}
	if limit := s.opts.MaxResponseBytes; limit > 0 && int64(size) > limit {
		return nil, problem.ResponseTooLarge(int64(size), limit, "ask for fewer rows or outputs")
	}
	resp := &pb.ModelInferResponse{ModelName: inf.Model, ModelVersion: inf.Version, Id: req.Id, Outputs: make([]*pb.ModelInferResponse_InferOutputTensor, len(inf.Outputs))}
	if raw {
		resp.RawOutputContents = make([][]byte, len(inf.Outputs))
	}
	for i, o := range inf.Outputs {
		t := o.Tensor
		out := &pb.ModelInferResponse_InferOutputTensor{Name: o.Name, Datatype: oip.Datatype(t.DType), Shape: t.Shape}
		if raw {
			resp.RawOutputContents[i] = rawContents(resp, t)
		} else {
			out.Contents = toContents(t)
		}
		resp.Outputs[i] = out
	}
	return resp, nil
}
