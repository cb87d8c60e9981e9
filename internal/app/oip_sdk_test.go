package app_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"testing"

	"github.com/inferd/inferd/client"
	"github.com/inferd/inferd/internal/apitest"
)

// oipGoSDK: the Go SDK's methods for the Open Inference Protocol, over a real socket
// with every exchange validated against openapi.yaml: metadata and readiness, infer as
// JSON and with binary tensor data, and the protocol's errors read as *client.Error.
func oipGoSDK(t *testing.T, s *started) {
	c, err := client.New(s.url, client.WithAPIKey("k-all"), client.WithHTTPClient(&http.Client{Transport: apitest.Transport(t, nil)}))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if md, err := c.OIPServerMetadata(ctx); err != nil || !slices.Contains(md.Extensions, "binary_tensor_data") {
		t.Errorf("server metadata %+v, %v", md, err)
	}
	if err := c.OIPLive(ctx); err != nil {
		t.Error(err)
	}
	if err := c.OIPReady(ctx); err != nil {
		t.Error(err)
	}
	if md, err := c.OIPModelMetadata(ctx, "iris", "v1"); err != nil || md.Inputs[0].Datatype != "FP32" || !slices.Equal(md.Inputs[0].Shape, []int64{-1, 4}) {
		t.Errorf("iris metadata %+v, %v", md, err)
	}
	if r, err := c.OIPModelReady(ctx, "broken", ""); err != nil || r.Ready {
		t.Errorf("broken ready %+v, %v; want ready false", r, err)
	}

	data, _ := json.Marshal([]float64{5.1, 3.5, 1.4, 0.2})
	resp, err := c.OIPInfer(ctx, "iris", "v1", client.OIPInferRequest{Inputs: []client.OIPRequestInput{{Name: "input", Datatype: "FP32", Shape: []int64{1, 4}, Data: data}}})
	if err != nil || resp.ModelVersion == nil || *resp.ModelVersion != "v1" || !slices.Equal(resp.Outputs[0].Shape, []int64{1, 3}) {
		t.Errorf("infer %+v, %v", resp, err)
	}

	raw := append(fp32(1, 2), byteElems("hi")...)
	yes := json.RawMessage("true")
	header := client.OIPInferRequest{
		Inputs: []client.OIPRequestInput{
			{Name: "f", Datatype: "FP32", Shape: []int64{2}, Parameters: &client.OIPParameters{"binary_data_size": json.RawMessage("8")}},
			{Name: "s", Datatype: "BYTES", Shape: []int64{1}, Parameters: &client.OIPParameters{"binary_data_size": json.RawMessage("6")}},
		},
		Parameters: &client.OIPParameters{"binary_data_output": yes},
	}
	out, bin, err := c.OIPInferBinary(ctx, "echo", "v1", header, raw)
	if err != nil || len(out.Outputs) != 2 || !bytes.Equal(bin, raw) {
		t.Errorf("binary echo %+v %x, %v; sent %x", out, bin, err, raw)
	}

	_, err = c.OIPInfer(ctx, "iris", "v1", client.OIPInferRequest{Inputs: []client.OIPRequestInput{{Name: "input", Datatype: "FP64", Shape: []int64{1, 4}, Data: data}}})
	var e *client.Error
	if !client.IsCode(err, client.CodeInvalidInput) || !errors.As(err, &e) || e.Status != 400 || e.Detail != `input "input" is FP64; the model takes FP32` || e.RequestID == "" {
		t.Errorf("error %#v, want a 400 invalid_input with the protocol's message", err)
	}

	if cfg, err := c.OIPModelConfig(ctx, "digits", ""); err != nil || cfg.MaxBatchSize != 128 || cfg.DynamicBatching == nil || !slices.Equal(cfg.Input[0].Dims, []int64{64}) {
		t.Errorf("digits config %+v, %v", cfg, err)
	}
	if st, err := c.OIPStatistics(ctx, "iris", "v1"); err != nil || len(st.ModelStats) != 1 || st.ModelStats[0].InferenceStats.Success.Count < 1 {
		t.Errorf("iris v1 statistics %+v, %v; want the infer above counted", st, err)
	}
	if st, err := c.OIPStatistics(ctx, "", ""); err != nil || len(st.ModelStats) < 6 {
		t.Errorf("statistics of every version: %+v, %v", st, err)
	}
	if idx, err := c.OIPRepositoryIndex(ctx, true); err != nil || slices.ContainsFunc(idx, func(m client.OIPRepositoryModel) bool { return m.State != "READY" }) {
		t.Errorf("ready index %+v, %v", idx, err)
	}
	admin, err := client.New(s.url, client.WithAPIKey("k-admin"), client.WithHTTPClient(&http.Client{Transport: apitest.Transport(t, nil)}))
	if err != nil {
		t.Fatal(err)
	}
	if idx, err := admin.OIPUnload(ctx, "diabetes"); err != nil || len(idx) != 1 || idx[0].State != "UNAVAILABLE" {
		t.Errorf("unload %+v, %v", idx, err)
	}
	if idx, err := admin.OIPLoad(ctx, "diabetes"); err != nil || len(idx) != 1 || idx[0].State != "READY" {
		t.Errorf("load %+v, %v", idx, err)
	}
	if _, err := c.OIPUnload(ctx, "diabetes"); !client.IsCode(err, client.CodeForbidden) {
		t.Errorf("unload without the admin scope: %v", err)
	}
}
