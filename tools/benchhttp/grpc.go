package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"

	pb "github.com/inferd/inferd/gen/inference"
)

// grpcMaxMessage bounds a ModelInfer answer the load generator accepts: above the 1 MB
// tensor's, below grpc-go's default of 4 MiB, which a larger -OIPTensorBytes would pass.
const grpcMaxMessage = 64 << 20

// grpcKey is the key's metadata, as REST's X-API-Key header.
var grpcKey = metadata.Pairs("x-api-key", devKey)

// grpcSession sends req by ModelInfer, again and again, on a grpc.ClientConn of its
// own per connection of the load: one call outstanding on each, as an HTTP case has
// one request on each keep-alive connection. check looks at each answer; items is
// what one answer counts.
func grpcSession(addr string, req *pb.ModelInferRequest, items int, check func(*pb.ModelInferResponse) error) Session {
	return func(ctx context.Context) (Step, func(), error) {
		// passthrough: the address is an IP and port; no resolver goroutine for it.
		cc, err := grpc.NewClient("passthrough:///"+addr,
			grpc.WithTransportCredentials(insecure.NewCredentials()),
			grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(grpcMaxMessage), grpc.MaxCallSendMsgSize(grpcMaxMessage)))
		if err != nil {
			return nil, nil, err
		}
		client := pb.NewGRPCInferenceServiceClient(cc)
		// A copy per connection: marshalling writes the message's cached size.
		req := proto.Clone(req).(*pb.ModelInferRequest)
		w := newWatchdog(ctx)
		step := func(context.Context) (int, error) {
			resp, err := client.ModelInfer(w.call(), req)
			if err != nil {
				return 0, w.explain("ModelInfer "+req.ModelName, err)
			}
			return items, check(resp)
		}
		return step, func() { w.stop(); _ = cc.Close() }, nil
	}
}

// watchdog gives each call requestTimeout, as Conn's deadline does an HTTP request,
// without sending it: a deadline would travel as grpc-timeout and cost the server a
// timer of its own per call, which REST's requests do not.
type watchdog struct {
	base   context.Context // the load's, with the key's metadata
	ctx    context.Context // the calls', cancelled when one takes too long
	cancel context.CancelFunc
	timer  *time.Timer
}

func newWatchdog(ctx context.Context) *watchdog {
	w := &watchdog{base: metadata.NewOutgoingContext(ctx, grpcKey)}
	w.renew()
	return w
}

func (w *watchdog) renew() {
	if w.timer != nil {
		w.timer.Stop()
	}
	w.ctx, w.cancel = context.WithCancel(w.base)
	w.timer = time.AfterFunc(requestTimeout, w.cancel)
}

// call is the context of the next call: the timer restarts from now.
func (w *watchdog) call() context.Context {
	if w.ctx.Err() != nil && w.base.Err() == nil { // the last call timed out
		w.renew()
	}
	w.timer.Reset(requestTimeout)
	return w.ctx
}

// explain says a call the watchdog cut off took too long.
func (w *watchdog) explain(what string, err error) error {
	if w.ctx.Err() != nil && w.base.Err() == nil {
		return fmt.Errorf("%s: no answer within %s", what, requestTimeout)
	}
	return fmt.Errorf("%s: %w", what, err)
}

func (w *watchdog) stop() {
	w.timer.Stop()
	w.cancel()
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
