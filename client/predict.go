package client

import (
	"bytes"
	"context"
	"errors"
	"io"

	gen "github.com/inferd/inferd/gen/client"
)

// PredictRequest is one input for a model (POST /predict, POST /predict/async).
type PredictRequest struct {
	Model   string
	Version string // empty: the model's routing rule chooses, and the answer names it
	Data    any    // encoded with encoding/json; a json.RawMessage is sent as it is
	// CallbackURL is for Submit: where the job's final record is posted, signed (see
	// VerifyWebhook). Predict refuses a request that sets it.
	CallbackURL string
}

// BatchRequest is a batch of inputs for one model version (POST /predict/batch, POST
// /predict/async/batch).
type BatchRequest struct {
	Model   string
	Version string // empty: the model's routing rule chooses, and the answer names it
	Items   []any  // at least one; each encoded like PredictRequest.Data
	// CallbackURL is for SubmitBatch, as PredictRequest's is for Submit.
	CallbackURL string
	// OnError is OnErrorContinue for a batch whose items fail alone; "" (or
	// OnErrorFail) fails the whole batch with its first refused item.
	OnError OnError
}

// body encodes the whole request once, without HTML escaping; the generated
// client's typed methods would marshal it again with encoding/json's defaults.
func (r PredictRequest) body() (io.Reader, error) {
	if r.CallbackURL != "" {
		return nil, errSyncCallback
	}
	data, err := encode("data", r.Data)
	if err != nil {
		return nil, err
	}
	return request(gen.PredictRequest{Model: r.Model, Version: r.Version, Data: data})
}

// asyncBody is body for Submit, which may carry a callback.
func (r PredictRequest) asyncBody() (io.Reader, error) {
	data, err := encode("data", r.Data)
	if err != nil {
		return nil, err
	}
	return request(gen.AsyncPredictRequest{Model: r.Model, Version: r.Version, Data: data, CallbackUrl: optional(r.CallbackURL)})
}

func (r BatchRequest) body() (io.Reader, error) {
	if r.CallbackURL != "" {
		return nil, errSyncCallback
	}
	items, err := r.items()
	if err != nil {
		return nil, err
	}
	return request(gen.BatchPredictRequest{Model: r.Model, Version: r.Version, Items: items, OnError: r.onError()})
}

// asyncBody is body for SubmitBatch, which may carry a callback.
func (r BatchRequest) asyncBody() (io.Reader, error) { return r.asyncBodyWith(SubmitOptions{}) }

// asyncBodyWith is asyncBody with SubmitBatchWith's options.
func (r BatchRequest) asyncBodyWith(o SubmitOptions) (io.Reader, error) {
	items, err := r.items()
	if err != nil {
		return nil, err
	}
	return request(gen.AsyncBatchPredictRequest{Model: r.Model, Version: r.Version, Items: items, CallbackUrl: optional(r.CallbackURL),
		OnError: r.onError(), Priority: o.priority(), Deadline: o.deadline()})
}

// onError is the request's on_error member: left out when "".
func (r BatchRequest) onError() *gen.BatchOnError {
	if r.OnError == "" {
		return nil
	}
	e := r.OnError
	return &e
}

func (r BatchRequest) items() ([]gen.AnyValue, error) {
	items := make([]gen.AnyValue, len(r.Items))
	for i, it := range r.Items {
		b, err := encode("items", it)
		if err != nil {
			return nil, err
		}
		items[i] = b
	}
	return items, nil
}

// errSyncCallback: a synchronous prediction answers with its result; only a job calls
// back.
var errSyncCallback = errors.New("inferd: CallbackURL is for Submit and SubmitBatch; a synchronous prediction answers with its result")

// optional is s as an optional member: nil, and so left out, when "".
func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func request(v any) (io.Reader, error) {
	b, err := encode("the request", v)
	return bytes.NewReader(b), err
}

// Predict runs one synchronous prediction (POST /predict, operation predict).
func (c *Client) Predict(ctx context.Context, r PredictRequest) (*Prediction, error) {
	body, err := r.body()
	if err != nil {
		return nil, err
	}
	resp, err := c.gen.PredictWithBody(ctx, nil, contentJSON, body)
	var out Prediction
	if err := read(resp, err, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// PredictBatch runs a synchronous batch (POST /predict/batch, operation
// predictBatch): one pipeline call, Results in the order of Items.
func (c *Client) PredictBatch(ctx context.Context, r BatchRequest) (*BatchPrediction, error) {
	body, err := r.body()
	if err != nil {
		return nil, err
	}
	resp, err := c.gen.PredictBatchWithBody(ctx, nil, contentJSON, body)
	var out BatchPrediction
	if err := read(resp, err, &out); err != nil {
		return nil, err
	}
	return &out, nil
}
