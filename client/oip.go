package client

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"

	gen "github.com/inferd/inferd/gen/client"
)

// The Open Inference Protocol's messages (/v2), as generated from openapi.yaml.
type (
	OIPServerMetadata = gen.OIPServerMetadata
	OIPModelMetadata  = gen.OIPModelMetadata
	OIPTensorMetadata = gen.OIPTensorMetadata
	OIPModelReady     = gen.OIPModelReady
	OIPInferRequest   = gen.OIPInferRequest
	OIPInferResponse  = gen.OIPInferResponse
	OIPRequestInput   = gen.OIPRequestInput
	OIPRequestOutput  = gen.OIPRequestOutput
	OIPResponseOutput = gen.OIPResponseOutput
	OIPDatatype       = gen.OIPDatatype
	OIPParameters     = gen.OIPParameters

	OIPModelConfig      = gen.OIPModelConfig
	OIPStatistics       = gen.OIPStatistics
	OIPModelStatistics  = gen.OIPModelStatistics
	OIPRepositoryModel  = gen.OIPRepositoryModel
	OIPRepositoryStates = gen.OIPRepositoryModelState
)

// OIPServerMetadata names the server, its version and its protocol extensions (GET
// /v2, operation oipServerMetadata; scope read_models).
func (c *Client) OIPServerMetadata(ctx context.Context) (*OIPServerMetadata, error) {
	resp, err := c.gen.OipServerMetadata(ctx)
	var out OIPServerMetadata
	if err := read(resp, err, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// OIPLive is the protocol's liveness probe (GET /v2/health/live, operation
// oipServerLive; no key needed): nil when the server is live.
func (c *Client) OIPLive(ctx context.Context) error {
	resp, err := c.gen.OipServerLive(ctx)
	return read(resp, err, nil)
}

// OIPReady is the protocol's readiness probe (GET /v2/health/ready, operation
// oipServerReady; no key needed): nil once every pipeline has loaded, else an *Error
// with status 503.
func (c *Client) OIPReady(ctx context.Context) error {
	resp, err := c.gen.OipServerReady(ctx)
	return read(resp, err, nil)
}

// OIPModelMetadata describes the tensors an infer call of a model sends and gets,
// after the version's steps (GET /v2/models/{model}, operation oipModelMetadata, or
// with a version GET /v2/models/{model}/versions/{version}, operation
// oipModelVersionMetadata; scope read_models). version "" describes the version
// tensor calls without one go to.
func (c *Client) OIPModelMetadata(ctx context.Context, model, version string) (*OIPModelMetadata, error) {
	var resp *http.Response
	var err error
	if version == "" {
		resp, err = c.gen.OipModelMetadata(ctx, model)
	} else {
		resp, err = c.gen.OipModelVersionMetadata(ctx, model, version)
	}
	var out OIPModelMetadata
	if err := read(resp, err, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// OIPModelReady says whether a version can serve (GET /v2/models/{model}/ready,
// operation oipModelReady, or .../versions/{version}/ready, operation
// oipModelVersionReady; scope read_models). A version that is loading or failed is
// an answer, not an error: Ready false.
func (c *Client) OIPModelReady(ctx context.Context, model, version string) (*OIPModelReady, error) {
	var resp *http.Response
	var err error
	if version == "" {
		resp, err = c.gen.OipModelReady(ctx, model)
	} else {
		resp, err = c.gen.OipModelVersionReady(ctx, model, version)
	}
	var out OIPModelReady
	err = read(resp, err, &out)
	if e, ok := err.(*Error); ok && e.Status == http.StatusServiceUnavailable && json.Unmarshal(e.body, &out) == nil && out.Name != "" {
		return &out, nil
	}
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// OIPInfer runs tensors through a model version's steps and model, as /predict runs
// its data (POST /v2/models/{model}/infer, operation oipInfer, or
// .../versions/{version}/infer, operation oipInferVersion; scope predict), as JSON
// both ways.
func (c *Client) OIPInfer(ctx context.Context, model, version string, r OIPInferRequest) (*OIPInferResponse, error) {
	body, err := encode("the inference request", r)
	if err != nil {
		return nil, err
	}
	resp, err := c.oipPost(ctx, model, version, contentJSON, nil, body)
	var out OIPInferResponse
	if err := read(resp, err, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// OIPInferBinary is OIPInfer with the binary tensor data extension: header is the
// JSON request (its inputs with parameters.binary_data_size) and raw their bytes, in
// order. It returns the JSON response and the bytes of the outputs sent as binary
// data, which follow it in the order of its outputs.
func (c *Client) OIPInferBinary(ctx context.Context, model, version string, header OIPInferRequest, raw []byte) (*OIPInferResponse, []byte, error) {
	h, err := encode("the inference request", header)
	if err != nil {
		return nil, nil, err
	}
	n := len(h)
	resp, err := c.oipPost(ctx, model, version, "application/octet-stream", &n, append(h, raw...))
	var body []byte
	if err := read(resp, err, &body); err != nil {
		return nil, nil, err
	}
	hl := len(body)
	if v := resp.Header.Get("Inference-Header-Content-Length"); v != "" {
		if hl, err = strconv.Atoi(v); err != nil || hl < 0 || hl > len(body) {
			return nil, nil, fmt.Errorf("inferd: Inference-Header-Content-Length %q of a %d-byte answer", v, len(body))
		}
	}
	var out OIPInferResponse
	if err := json.Unmarshal(body[:hl], &out); err != nil {
		return nil, nil, fmt.Errorf("inferd: decoding the inference response: %w", err)
	}
	return &out, body[hl:], nil
}

// OIPModelConfig is Triton's configuration of a model version (GET
// /v2/models/{model}/config, operation oipModelConfig, or .../versions/{version}/config,
// operation oipModelVersionConfig; scope read_models); version "" as in
// OIPModelMetadata.
func (c *Client) OIPModelConfig(ctx context.Context, model, version string) (*OIPModelConfig, error) {
	var resp *http.Response
	var err error
	if version == "" {
		resp, err = c.gen.OipModelConfig(ctx, model)
	} else {
		resp, err = c.gen.OipModelVersionConfig(ctx, model, version)
	}
	var out OIPModelConfig
	if err := read(resp, err, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// OIPStatistics is Triton's inference statistics: of every version of every model
// (model "": GET /v2/models/stats, operation oipStatistics), of every version of one
// (version "": GET /v2/models/{model}/stats, operation oipModelStatistics), or of one
// version (operation oipModelVersionStatistics); scope read_models.
func (c *Client) OIPStatistics(ctx context.Context, model, version string) (*OIPStatistics, error) {
	var resp *http.Response
	var err error
	switch {
	case model == "":
		resp, err = c.gen.OipStatistics(ctx)
	case version == "":
		resp, err = c.gen.OipModelStatistics(ctx, model)
	default:
		resp, err = c.gen.OipModelVersionStatistics(ctx, model, version)
	}
	var out OIPStatistics
	if err := read(resp, err, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// OIPRepositoryIndex lists the model repository with each version's state (POST
// /v2/repository/index, operation oipRepositoryIndex; scope read_models); readyOnly
// keeps the versions that serve.
func (c *Client) OIPRepositoryIndex(ctx context.Context, readyOnly bool) ([]OIPRepositoryModel, error) {
	resp, err := c.gen.OipRepositoryIndex(ctx, gen.OIPRepositoryIndexRequest{Ready: &readyOnly})
	var out []OIPRepositoryModel
	if err := read(resp, err, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// OIPLoad loads what the model repository holds of a model (POST
// /v2/repository/models/{model}/load, operation oipRepositoryLoad; scope admin) and
// returns the model's index entries.
func (c *Client) OIPLoad(ctx context.Context, model string) ([]OIPRepositoryModel, error) {
	resp, err := c.gen.OipRepositoryLoad(ctx, model, gen.OIPRepositoryLoadRequest{})
	var out []OIPRepositoryModel
	if err := read(resp, err, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// OIPUnload unloads every version of a model, once its requests in flight have
// finished (POST /v2/repository/models/{model}/unload, operation oipRepositoryUnload;
// scope admin), and returns the model's index entries.
func (c *Client) OIPUnload(ctx context.Context, model string) ([]OIPRepositoryModel, error) {
	resp, err := c.gen.OipRepositoryUnload(ctx, model, gen.OIPRepositoryUnloadRequest{})
	var out []OIPRepositoryModel
	if err := read(resp, err, &out); err != nil {
		return nil, err
	}
	return out, nil
}

func (c *Client) oipPost(ctx context.Context, model, version, contentType string, headerLen *int, body []byte) (*http.Response, error) {
	var rd io.Reader = bytes.NewReader(body)
	if version == "" {
		return c.gen.OipInferWithBody(ctx, model, &gen.OipInferParams{InferenceHeaderContentLength: headerLen}, contentType, rd)
	}
	return c.gen.OipInferVersionWithBody(ctx, model, version, &gen.OipInferVersionParams{InferenceHeaderContentLength: headerLen}, contentType, rd)
}

// oipError reads the protocol's error shape, {"error": ..., "code": ..., "request_id": ...}.
func oipError(body []byte, e *Error) bool {
	var o gen.OIPError
	if json.Unmarshal(body, &o) != nil || o.Error == "" || o.Code == "" || o.RequestId == "" { // all three: the contract's OIPError
		return false
	}
	e.Code, e.Detail, e.RequestID = o.Code, o.Error, o.RequestId
	return true
}
