package client

import (
	"bytes"
	"context"
	"io"

	gen "github.com/inferd/inferd/gen/client"
)

// PredictRequest is one input for a model (POST /predict, POST /predict/async).
type PredictRequest struct {
	Model   string
	Version string // empty: the model's routing rule chooses, and the answer names it
	Data    any    // encoded with encoding/json; a json.RawMessage is sent as it is
}

// BatchRequest is a batch of inputs for one model version (POST /predict/batch, POST
// /predict/async/batch).
type BatchRequest struct {
	Model   string
	Version string // empty: the model's routing rule chooses, and the answer names it
	Items   []any  // at least one; each encoded like PredictRequest.Data
}

// body encodes the whole request once, without HTML escaping; the generated
// client's typed methods would marshal it again with encoding/json's defaults.
func (r PredictRequest) body() (io.Reader, error) {
	data, err := encode("data", r.Data)
	if err != nil {
		return nil, err
	}
	return request(gen.PredictRequest{Model: r.Model, Version: r.Version, Data: data})
}

func (r BatchRequest) body() (io.Reader, error) {
	items := make([]gen.AnyValue, len(r.Items))
	for i, it := range r.Items {
		b, err := encode("items", it)
		if err != nil {
			return nil, err
		}
		items[i] = b
	}
	return request(gen.BatchPredictRequest{Model: r.Model, Version: r.Version, Items: items})
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
