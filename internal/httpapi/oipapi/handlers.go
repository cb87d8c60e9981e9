package oipapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"

	"github.com/inferd/inferd/gen/api"
	"github.com/inferd/inferd/internal/oip"
	"github.com/inferd/inferd/internal/problem"
	"github.com/inferd/inferd/internal/registry"
)

// HeaderInferenceLength is the binary data extension's header, canonical.
const HeaderInferenceLength = "Inference-Header-Content-Length"

// contentTypeJSON is shared by every JSON answer: net/http only reads header values.
var contentTypeJSON = []string{"application/json"}

// Config is what the handlers need of the server.
type Config struct {
	// Service answers the calls about the server and its models, as over gRPC.
	Service  *oip.Service
	Registry *registry.Registry
	// MaxBatchItems caps the rows of an infer call (MAX_BATCH_ITEMS), MaxResponseBytes
	// the bytes of its answer (MAX_RESPONSE_BYTES).
	MaxBatchItems    int
	MaxResponseBytes int64
}

// Handlers serve the protocol's operations of the strict interface.
type Handlers struct{ cfg Config }

// New returns the handlers over cfg.
func New(cfg Config) *Handlers { return &Handlers{cfg: cfg} }

// OipServerMetadata names the server, its version and the extensions it speaks.
func (h *Handlers) OipServerMetadata(context.Context, api.OipServerMetadataRequestObject) (api.OipServerMetadataResponseObject, error) {
	md := h.cfg.Service.ServerMetadata()
	return api.OipServerMetadata200JSONResponse{Name: md.Name, Version: md.Version, Extensions: md.Extensions}, nil
}

// OipServerLive answers as soon as the process listens, as Health does.
func (h *Handlers) OipServerLive(context.Context, api.OipServerLiveRequestObject) (api.OipServerLiveResponseObject, error) {
	return api.OipServerLive200JSONResponse{Live: true}, nil
}

// OipServerReady answers as Ready does, 200 when it would and 503 otherwise, so the
// two probes never disagree.
func (h *Handlers) OipServerReady(ctx context.Context, _ api.OipServerReadyRequestObject) (api.OipServerReadyResponseObject, error) {
	ready, err := h.cfg.Service.ServerReady(ctx)
	if err != nil {
		return nil, err
	}
	if ready {
		return api.OipServerReady200JSONResponse{Ready: true}, nil
	}
	retry := problem.RetryAfterSeconds
	return api.OipServerReady503JSONResponse{Body: api.OIPReady{Ready: false}, Headers: api.OipServerReady503ResponseHeaders{RetryAfter: &retry}}, nil
}

// OipModelMetadata describes the version the model's routing rule chooses.
func (h *Handlers) OipModelMetadata(_ context.Context, req api.OipModelMetadataRequestObject) (api.OipModelMetadataResponseObject, error) {
	md, err := h.oipMetadata(req.ModelName, "")
	if err != nil {
		return nil, err
	}
	return api.OipModelMetadata200JSONResponse(md), nil
}

// OipModelVersionMetadata describes one version.
func (h *Handlers) OipModelVersionMetadata(_ context.Context, req api.OipModelVersionMetadataRequestObject) (api.OipModelVersionMetadataResponseObject, error) {
	md, err := h.oipMetadata(req.ModelName, req.ModelVersion)
	if err != nil {
		return nil, err
	}
	return api.OipModelVersionMetadata200JSONResponse(md), nil
}

// oipMetadata is the service's metadata of a version, as the contract types it.
func (h *Handlers) oipMetadata(name, version string) (api.OIPModelMetadata, error) {
	md, err := h.cfg.Service.ModelMetadata(name, version)
	if err != nil {
		return api.OIPModelMetadata{}, err
	}
	return api.OIPModelMetadata{Name: md.Name, Versions: md.Versions, Platform: md.Platform, Inputs: oipTensors(md.Inputs), Outputs: oipTensors(md.Outputs)}, nil
}

func oipTensors(ts []oip.TensorMetadata) []api.OIPTensorMetadata {
	out := make([]api.OIPTensorMetadata, len(ts))
	for i, t := range ts {
		out[i] = api.OIPTensorMetadata{Name: t.Name, Datatype: api.OIPDatatype(t.Datatype), Shape: t.Shape}
	}
	return out
}

// OipModelReady says whether the version the rule chooses can serve.
func (h *Handlers) OipModelReady(_ context.Context, req api.OipModelReadyRequestObject) (api.OipModelReadyResponseObject, error) {
	ready, err := h.oipReady(req.ModelName, "")
	if err != nil {
		return nil, err
	}
	if !ready.Ready {
		retry := problem.RetryAfterSeconds
		return api.OipModelReady503JSONResponse{Body: ready, Headers: api.OipModelReady503ResponseHeaders{RetryAfter: &retry}}, nil
	}
	return api.OipModelReady200JSONResponse(ready), nil
}

// OipModelVersionReady says whether one version can serve.
func (h *Handlers) OipModelVersionReady(_ context.Context, req api.OipModelVersionReadyRequestObject) (api.OipModelVersionReadyResponseObject, error) {
	ready, err := h.oipReady(req.ModelName, req.ModelVersion)
	if err != nil {
		return nil, err
	}
	if !ready.Ready {
		retry := problem.RetryAfterSeconds
		return api.OipModelVersionReady503JSONResponse{Body: ready, Headers: api.OipModelVersionReady503ResponseHeaders{RetryAfter: &retry}}, nil
	}
	return api.OipModelVersionReady200JSONResponse(ready), nil
}

func (h *Handlers) oipReady(name, version string) (api.OIPModelReady, error) {
	r, err := h.cfg.Service.ModelReady(name, version)
	if err != nil {
		return api.OIPModelReady{}, err
	}
	return api.OIPModelReady{Name: r.Name, Version: &r.Version, Ready: r.Ready}, nil
}

// OipInfer is the generated strict path of an infer call, taken only without the
// validator in front (which hands the body to oipServe); it runs the same code.
func (h *Handlers) OipInfer(ctx context.Context, req api.OipInferRequestObject) (api.OipInferResponseObject, error) {
	body, err := strictBody(req.JSONBody, req.Body)
	if err != nil {
		return nil, err
	}
	res, err := h.Infer(ctx, req.ModelName, "", req.Params.InferenceHeaderContentLength, body)
	if err != nil {
		return nil, err
	}
	if res.headerLen < 0 {
		return oipJSONResponse{res}, nil
	}
	return api.OipInfer200ApplicationoctetStreamResponse{Body: bytes.NewReader(res.body), ContentLength: int64(len(res.body)), Headers: api.OipInfer200ResponseHeaders{InferenceHeaderContentLength: &res.headerLen}}, nil
}

// OipInferVersion is OipInfer with the version in the path.
func (h *Handlers) OipInferVersion(ctx context.Context, req api.OipInferVersionRequestObject) (api.OipInferVersionResponseObject, error) {
	body, err := strictBody(req.JSONBody, req.Body)
	if err != nil {
		return nil, err
	}
	res, err := h.Infer(ctx, req.ModelName, req.ModelVersion, req.Params.InferenceHeaderContentLength, body)
	if err != nil {
		return nil, err
	}
	if res.headerLen < 0 {
		return oipJSONResponse{res}, nil
	}
	return api.OipInferVersion200ApplicationoctetStreamResponse{Body: bytes.NewReader(res.body), ContentLength: int64(len(res.body)), Headers: api.OipInferVersion200ResponseHeaders{InferenceHeaderContentLength: &res.headerLen}}, nil
}

func strictBody(parsed any, r io.Reader) ([]byte, error) {
	if r != nil {
		return io.ReadAll(r)
	}
	return json.Marshal(parsed)
}

// oipJSONResponse writes an encoded JSON answer for both strict infer operations.
type oipJSONResponse struct{ res Result }

func (o oipJSONResponse) VisitOipInferResponse(w http.ResponseWriter) error {
	return o.res.Write(w)
}

func (o oipJSONResponse) VisitOipInferVersionResponse(w http.ResponseWriter) error {
	return o.res.Write(w)
}

// Result is an encoded answer: JSON when headerLen < 0, else the binary data
// extension's JSON header of headerLen bytes and the binary outputs.
type Result struct {
	body      []byte
	headerLen int
	version   string
	// pooled, when set, is where body came from in responseBufs: Write returns it.
	pooled *[]byte
}

// responseBufs are the bodies of written infer responses, reused by later ones: a
// megabyte tensor's answer is a megabyte allocated and cleared per call otherwise.
var responseBufs = sync.Pool{New: func() any { return new([]byte) }}

// maxPooledResponse caps the bodies kept for reuse: a rare huge answer's buffer is
// left to the collector rather than held.
const maxPooledResponse = 4 << 20

func (res Result) Write(w http.ResponseWriter) error {
	h := w.Header()
	if res.headerLen < 0 {
		h["Content-Type"] = contentTypeJSON
	} else {
		h["Content-Type"] = []string{"application/octet-stream"}
		h[HeaderInferenceLength] = []string{strconv.Itoa(res.headerLen)}
	}
	h["Content-Length"] = []string{strconv.Itoa(len(res.body))}
	w.WriteHeader(http.StatusOK)
	_, err := w.Write(res.body)
	// Written, the body is no one's: net/http has copied it to the connection.
	if res.pooled != nil && cap(res.body) <= maxPooledResponse {
		*res.pooled = res.body[:0]
		responseBufs.Put(res.pooled)
	}
	return err
}

// Infer runs one infer call on body, whose first headerLen bytes are the JSON request
// when the binary data extension is used (headerLen set), else all of it.
func (h *Handlers) Infer(ctx context.Context, model, version string, headerLen *int, body []byte) (Result, error) {
	header, bin := body, []byte(nil)
	if headerLen != nil {
		n := *headerLen
		if n < 0 || n > len(body) {
			return Result{}, &problem.Error{Kind: problem.Invalid, Code: problem.CodeInvalidRequest,
				Detail: fmt.Sprintf("%s is %d, but the body holds %d bytes; it must be the length of the JSON header that starts the body", HeaderInferenceLength, n, len(body))}
		}
		header, bin = body[:n], body[n:]
	}
	req, err := oip.Decode(header, bin)
	if err != nil {
		return Result{}, oip.Refusal(err)
	}
	// A request that names no outputs (most) gets all of them, in binary or not as a
	// whole: it needs neither the list nor the map.
	var outs []string
	var binary map[string]bool
	if len(req.Outputs) > 0 {
		outs = make([]string, len(req.Outputs))
		binary = make(map[string]bool, len(req.Outputs))
		for i, o := range req.Outputs {
			outs[i] = o.Name
			binary[o.Name] = o.Binary
		}
	}
	inf, err := h.cfg.Registry.Infer(ctx, registry.InferRequest{Model: model, Version: version, Inputs: req.Inputs, Outputs: outs, MaxRows: h.cfg.MaxBatchItems})
	if err != nil {
		return Result{}, oip.Refusal(problem.InPath(err))
	}
	buf := responseBufs.Get().(*[]byte)
	out, n, err := oip.Encode(oip.Response{Model: inf.Model, Version: inf.Version, ID: req.ID, Outputs: inf.Outputs, MaxBytes: int(h.cfg.MaxResponseBytes), Buf: *buf},
		func(name string) bool { return req.BinaryOutput || binary[name] })
	if err != nil {
		responseBufs.Put(buf)
		return Result{}, oip.Refusal(err)
	}
	return Result{body: out, headerLen: n, version: inf.Version, pooled: buf}, nil
}
