package main

import (
	"context"
	"errors"
	"fmt"

	"google.golang.org/protobuf/proto"

	pb "github.com/inferd/inferd/gen/inference"
)

// grpcMaxMessage bounds a ModelInfer answer the load generator accepts: far above the
// 1 MB tensor's, so that a larger one still passes.
const grpcMaxMessage = 64 << 20

// grpcSession sends req by ModelInfer, again and again, on a GRPCConn of its own per
// connection of the load: one call outstanding on each, as an HTTP case has one
// request on each keep-alive connection, the key as x-api-key metadata as REST's
// X-API-Key header, and no deadline sent (a grpc-timeout would cost the server a timer
// per call, which REST's requests do not). check looks at each answer; items is what
// one answer counts.
func grpcSession(addr string, req *pb.ModelInferRequest, items int, check func(*pb.ModelInferResponse) error) Session {
	return func(ctx context.Context) (Step, func(), error) {
		msg, err := proto.Marshal(req)
		if err != nil {
			return nil, nil, err
		}
		c := NewGRPCConn(ctx, addr, pb.GRPCInferenceService_ModelInfer_FullMethodName, Header{"x-api-key", devKey})
		resp := &pb.ModelInferResponse{}
		step := func(context.Context) (int, error) {
			answer, err := c.Invoke(msg)
			if err != nil {
				if ctx.Err() != nil {
					return 0, err
				}
				return 0, fmt.Errorf("ModelInfer %s: %w", req.ModelName, err)
			}
			if err := proto.Unmarshal(answer, resp); err != nil {
				return 0, fmt.Errorf("ModelInfer %s: the answer: %w", req.ModelName, err)
			}
			return items, check(resp)
		}
		return step, c.Close, nil
	}
}

// grpcInfer is a ModelInfer request of one FP32 tensor of shape [1, len(v)]: its values
// in raw_input_contents (raw), or typed in contents.
func grpcInfer(model, version, input string, v []float32, raw bool) *pb.ModelInferRequest {
	in := &pb.ModelInferRequest_InferInputTensor{Name: input, Datatype: "FP32", Shape: []int64{1, int64(len(v))}}
	req := &pb.ModelInferRequest{ModelName: model, ModelVersion: version, Inputs: []*pb.ModelInferRequest_InferInputTensor{in}}
	if raw {
		req.RawInputContents = [][]byte{appendFP32(make([]byte, 0, 4*len(v)), v)}
	} else {
		in.Contents = &pb.InferTensorContents{Fp32Contents: v}
	}
	return req
}

// answered checks that an answer has its outputs, raw (inferd answers raw to raw
// inputs) or typed as asked; with want > 0, the first output holds want FP32 values.
func answered(raw bool, want int) func(*pb.ModelInferResponse) error {
	return func(resp *pb.ModelInferResponse) error {
		if len(resp.Outputs) == 0 {
			return errors.New("ModelInfer: an answer without outputs")
		}
		n := -1
		switch {
		case raw && len(resp.RawOutputContents) == len(resp.Outputs):
			n = len(resp.RawOutputContents[0]) / 4
		case !raw && len(resp.RawOutputContents) == 0 && resp.Outputs[0].Contents != nil:
			n = len(resp.Outputs[0].Contents.Fp32Contents)
		}
		if n < 0 || (want > 0 && n != want) {
			return fmt.Errorf("ModelInfer: an answer of %d outputs, %d raw contents, %d values in the first; want raw=%v and %d values",
				len(resp.Outputs), len(resp.RawOutputContents), n, raw, want)
		}
		return nil
	}
}
