package httpapi

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/inferd/inferd/gen/api"
	"github.com/inferd/inferd/internal/build"
	"github.com/inferd/inferd/internal/oip"
	"github.com/inferd/inferd/internal/pipeline"
	"github.com/inferd/inferd/internal/registry"
	"github.com/inferd/inferd/internal/tensor"
)

// oipPrefix starts every path of the Open Inference Protocol: their errors take the
// protocol's shape, {"error": ...}, which its clients read.
const oipPrefix = "/v2"

// oipExtensions are the protocol extensions GET /v2 lists.
var oipExtensions = []string{"binary_tensor_data", "model_configuration", "statistics", "model_repository"}

// headerInferenceLength is the binary data extension's header, canonical.
const headerInferenceLength = "Inference-Header-Content-Length"

// oipPath reports whether path lies under the Open Inference Protocol's prefix. Every
// answer there takes the protocol's error shape, an unknown path or method included:
// an OIP client reads `error` whatever went wrong.
func oipPath(path string) bool {
	return strings.HasPrefix(path, oipPrefix) && (len(path) == len(oipPrefix) || path[len(oipPrefix)] == '/')
}

// sendError writes p in the shape r's path answers errors in.
func sendError(w http.ResponseWriter, r *http.Request, p api.Problem) {
	traceProblem(r.Context(), p)
	if oipPath(r.URL.Path) {
		sendOIPError(w, p)
		return
	}
	sendProblem(w, p)
}

// sendOIPError writes a problem in the protocol's error shape, keeping inferd's code
// and request id beside the message.
func sendOIPError(w http.ResponseWriter, p api.Problem) {
	if (p.Status == http.StatusServiceUnavailable || p.Status == http.StatusTooManyRequests) && w.Header().Get("Retry-After") == "" {
		w.Header().Set("Retry-After", strconv.Itoa(retryAfterSeconds))
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(p.Status)
	_ = json.NewEncoder(w).Encode(api.OIPError{Error: p.Detail, Code: p.Code, RequestId: p.RequestId})
}

// OipServerMetadata names the server, its version and the extensions it speaks.
func (s *Server) OipServerMetadata(context.Context, api.OipServerMetadataRequestObject) (api.OipServerMetadataResponseObject, error) {
	return api.OipServerMetadata200JSONResponse{Name: "inferd", Version: build.Version, Extensions: oipExtensions}, nil
}

// OipServerLive answers as soon as the process listens, as Health does.
func (s *Server) OipServerLive(context.Context, api.OipServerLiveRequestObject) (api.OipServerLiveResponseObject, error) {
	return api.OipServerLive200JSONResponse{Live: true}, nil
}

// OipServerReady answers as Ready does, 200 when it would and 503 otherwise, so the
// two probes never disagree.
func (s *Server) OipServerReady(ctx context.Context, _ api.OipServerReadyRequestObject) (api.OipServerReadyResponseObject, error) {
	resp, err := s.Ready(ctx, api.ReadyRequestObject{})
	if err != nil {
		return nil, err
	}
	if _, ok := resp.(api.Ready200JSONResponse); ok {
		return api.OipServerReady200JSONResponse{Ready: true}, nil
	}
	retry := retryAfterSeconds
	return api.OipServerReady503JSONResponse{Body: api.OIPReady{Ready: false}, Headers: api.OipServerReady503ResponseHeaders{RetryAfter: &retry}}, nil
}

// OipModelMetadata describes the version the model's routing rule chooses.
func (s *Server) OipModelMetadata(_ context.Context, req api.OipModelMetadataRequestObject) (api.OipModelMetadataResponseObject, error) {
	md, err := s.oipMetadata(req.ModelName, "")
	if err != nil {
		return nil, err
	}
	return api.OipModelMetadata200JSONResponse(md), nil
}

// OipModelVersionMetadata describes one version.
func (s *Server) OipModelVersionMetadata(_ context.Context, req api.OipModelVersionMetadataRequestObject) (api.OipModelVersionMetadataResponseObject, error) {
	md, err := s.oipMetadata(req.ModelName, req.ModelVersion)
	if err != nil {
		return nil, err
	}
	return api.OipModelVersionMetadata200JSONResponse(md), nil
}

// oipMetadata describes a loaded version: the tensors are known once it has loaded,
// so a loading or failed one is a 503 as its infer calls are.
func (s *Server) oipMetadata(name, version string) (api.OIPModelMetadata, error) {
	ver, err := s.reg.ResolveTensors(name, version)
	if err != nil {
		return api.OIPModelMetadata{}, namedInPath(err)
	}
	m, err := s.reg.Describe(name)
	if err != nil {
		return api.OIPModelMetadata{}, namedInPath(err)
	}
	out := api.OIPModelMetadata{Name: name, Versions: []string{}, Inputs: []api.OIPTensorMetadata{}, Outputs: []api.OIPTensorMetadata{}}
	for _, v := range m.Versions {
		out.Versions = append(out.Versions, v.Version)
		if v.Version != ver {
			continue
		}
		out.Inputs, out.Outputs = oipTensors(v.Info.Inputs), oipTensors(v.Info.Outputs)
	}
	// Only the ONNX backend declares tensors; a model without them takes any (echo).
	out.Platform = "echo"
	if len(out.Inputs) > 0 {
		out.Platform = "onnxruntime_onnx"
	}
	return out, nil
}

func oipTensors(ts []pipeline.Tensor) []api.OIPTensorMetadata {
	out := make([]api.OIPTensorMetadata, len(ts))
	for i, t := range ts {
		out[i] = api.OIPTensorMetadata{Name: t.Name, Datatype: api.OIPDatatype(oip.Datatype(tensor.DType(t.DType))), Shape: t.Shape}
		if out[i].Shape == nil {
			out[i].Shape = []int64{}
		}
	}
	return out
}

// OipModelReady says whether the version the rule chooses can serve.
func (s *Server) OipModelReady(_ context.Context, req api.OipModelReadyRequestObject) (api.OipModelReadyResponseObject, error) {
	ready, err := s.oipReady(req.ModelName, "")
	if err != nil {
		return nil, err
	}
	if !ready.Ready {
		retry := retryAfterSeconds
		return api.OipModelReady503JSONResponse{Body: ready, Headers: api.OipModelReady503ResponseHeaders{RetryAfter: &retry}}, nil
	}
	return api.OipModelReady200JSONResponse(ready), nil
}

// OipModelVersionReady says whether one version can serve.
func (s *Server) OipModelVersionReady(_ context.Context, req api.OipModelVersionReadyRequestObject) (api.OipModelVersionReadyResponseObject, error) {
	ready, err := s.oipReady(req.ModelName, req.ModelVersion)
	if err != nil {
		return nil, err
	}
	if !ready.Ready {
		retry := retryAfterSeconds
		return api.OipModelVersionReady503JSONResponse{Body: ready, Headers: api.OipModelVersionReady503ResponseHeaders{RetryAfter: &retry}}, nil
	}
	return api.OipModelVersionReady200JSONResponse(ready), nil
}

func (s *Server) oipReady(name, version string) (api.OIPModelReady, error) {
	ver, err := s.reg.RouteTensors(name, version)
	if err != nil {
		return api.OIPModelReady{}, namedInPath(err)
	}
	_, err = s.reg.Resolve(name, ver)
	switch {
	case err == nil:
		return api.OIPModelReady{Name: name, Version: &ver, Ready: true}, nil
	case errors.Is(err, registry.ErrLoading) || errors.Is(err, registry.ErrUnavailable):
		return api.OIPModelReady{Name: name, Version: &ver, Ready: false}, nil
	}
	return api.OIPModelReady{}, namedInPath(err)
}

// OipInfer is the generated strict path of an infer call, taken only without the
// validator in front (which hands the body to oipServe); it runs the same code.
func (s *Server) OipInfer(ctx context.Context, req api.OipInferRequestObject) (api.OipInferResponseObject, error) {
	body, err := strictBody(req.JSONBody, req.Body)
	if err != nil {
		return nil, err
	}
	res, err := s.infer(ctx, req.ModelName, "", req.Params.InferenceHeaderContentLength, body)
	if err != nil {
		return nil, err
	}
	if res.headerLen < 0 {
		return oipJSONResponse{res}, nil
	}
	return api.OipInfer200ApplicationoctetStreamResponse{Body: bytes.NewReader(res.body), ContentLength: int64(len(res.body)), Headers: api.OipInfer200ResponseHeaders{InferenceHeaderContentLength: &res.headerLen}}, nil
}

// OipInferVersion is OipInfer with the version in the path.
func (s *Server) OipInferVersion(ctx context.Context, req api.OipInferVersionRequestObject) (api.OipInferVersionResponseObject, error) {
	body, err := strictBody(req.JSONBody, req.Body)
	if err != nil {
		return nil, err
	}
	res, err := s.infer(ctx, req.ModelName, req.ModelVersion, req.Params.InferenceHeaderContentLength, body)
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
type oipJSONResponse struct{ res inferResult }

func (o oipJSONResponse) VisitOipInferResponse(w http.ResponseWriter) error {
	return o.res.write(w)
}

func (o oipJSONResponse) VisitOipInferVersionResponse(w http.ResponseWriter) error {
	return o.res.write(w)
}

// inferResult is an encoded answer: JSON when headerLen < 0, else the binary data
// extension's JSON header of headerLen bytes and the binary outputs.
type inferResult struct {
	body      []byte
	headerLen int
	version   string
}

func (res inferResult) write(w http.ResponseWriter) error {
	h := w.Header()
	if res.headerLen < 0 {
		h["Content-Type"] = contentTypeJSON
	} else {
		h["Content-Type"] = []string{"application/octet-stream"}
		h[headerInferenceLength] = []string{strconv.Itoa(res.headerLen)}
	}
	h["Content-Length"] = []string{strconv.Itoa(len(res.body))}
	w.WriteHeader(http.StatusOK)
	_, err := w.Write(res.body)
	return err
}

// infer runs one infer call on body, whose first headerLen bytes are the JSON request
// when the binary data extension is used (headerLen set), else all of it.
func (s *Server) infer(ctx context.Context, model, version string, headerLen *int, body []byte) (inferResult, error) {
	header, bin := body, []byte(nil)
	if headerLen != nil {
		n := *headerLen
		if n < 0 || n > len(body) {
			return inferResult{}, &problemError{status: http.StatusBadRequest, code: codeInvalidRequest,
				detail: fmt.Sprintf("%s is %d, but the body holds %d bytes; it must be the length of the JSON header that starts the body", headerInferenceLength, n, len(body))}
		}
		header, bin = body[:n], body[n:]
	}
	req, err := oip.Decode(header, bin)
	if err != nil {
		return inferResult{}, oipInvalid(err)
	}
	outs := make([]string, len(req.Outputs))
	binary := map[string]bool{}
	for i, o := range req.Outputs {
		outs[i] = o.Name
		binary[o.Name] = o.Binary
	}
	inf, err := s.reg.Infer(ctx, registry.InferRequest{Model: model, Version: version, Inputs: req.Inputs, Outputs: outs, MaxRows: s.opts.MaxBatchItems})
	if err != nil {
		return inferResult{}, oipInvalid(namedInPath(err))
	}
	out, n, err := oip.Encode(oip.Response{Model: inf.Model, Version: inf.Version, ID: req.ID, Outputs: inf.Outputs, MaxBytes: int(s.opts.MaxResponseBytes)},
		func(name string) bool { return req.BinaryOutput || binary[name] })
	if err != nil {
		return inferResult{}, oipInvalid(err)
	}
	return inferResult{body: out, headerLen: n, version: inf.Version}, nil
}

// oipInvalid words a request's fault in the protocol's terms (its datatype names).
func oipInvalid(err error) error {
	if errors.Is(err, registry.ErrTooManyRows) {
		return &problemError{status: http.StatusRequestEntityTooLarge, code: codePayloadTooLarge, detail: err.Error() + " (MAX_BATCH_ITEMS); split the batch"}
	}
	var big *oip.SizeError
	if errors.As(err, &big) {
		return responseTooLarge(int64(big.AtLeast), int64(big.MaxBytes),
			"ask for fewer rows or outputs, or for binary data (\"parameters\":{\"binary_data_output\":true}), which takes a fraction of JSON's bytes")
	}
	var oe *oip.Error
	if errors.As(err, &oe) {
		code := codeInvalidInput
		if oe.Malformed {
			code = codeInvalidRequest // as a malformed body of /predict is
		}
		return &problemError{status: http.StatusBadRequest, code: code, detail: oe.Msg}
	}
	var te *registry.TensorError
	if !errors.As(err, &te) {
		return err
	}
	detail := te.Error()
	switch te.Problem {
	case registry.WrongDType:
		detail = fmt.Sprintf("input %q is %s; the model takes %s", te.Name, oipName(te.DType), oipName(te.WantDType))
	case registry.WrongShape:
		detail = fmt.Sprintf("input %q has shape %s; the model takes %s (-1: any size; the batch dimension first)", te.Name, tensor.FormatShape(te.Shape), tensor.FormatShape(te.WantShape))
	}
	return &problemError{status: http.StatusBadRequest, code: codeInvalidInput, detail: detail}
}

func oipName(d tensor.DType) string {
	if n := oip.Datatype(d); n != "" {
		return n
	}
	return string(d)
}

// oipBody applies Triton's rules to a /v2 body, which Triton's and KServe's clients
// count on: Triton never reads a request's Content-Type, so tritonclient sends none
// (and its asyncio flavour application/octet-stream on every POST, JSON included).
// An infer body without one is told JSON or binary by Inference-Header-Content-Length
// alone (see infer); the other POSTs take JSON whatever their (lack of) type says,
// and the validator is told so. Any other declared type is refused 415, as a type the
// protocol does not send. A body compressed with gzip or deflate, as tritonclient
// sends when asked, is decompressed, and MAX_REQUEST_BYTES caps what it decompresses
// to. It answers the request and returns false when the body is refused.
func (s *Server) oipBody(w http.ResponseWriter, r *http.Request) bool {
	ct := r.Header.Get("Content-Type")
	mt := ""
	if ct != "" {
		var err error
		if mt, _, err = mime.ParseMediaType(ct); err != nil {
			mt = ct
		}
	}
	switch mt {
	case "", "application/octet-stream":
		if !s.isOIPInfer(r) {
			r.Header.Set("Content-Type", "application/json")
		}
	case "application/json":
	default:
		writeProblem(w, r, http.StatusUnsupportedMediaType, codeUnsupportedMediaType,
			fmt.Sprintf("send the body as Content-Type: application/json or application/octet-stream (or none), not %.60s", ct))
		return false
	}
	enc := strings.ToLower(strings.TrimSpace(r.Header.Get("Content-Encoding")))
	var body io.ReadCloser
	switch enc {
	case "", "identity":
		return true
	case "gzip":
		zr, err := gzip.NewReader(r.Body)
		if err != nil {
			writeProblem(w, r, http.StatusBadRequest, codeInvalidRequest, "the body is sent with Content-Encoding: gzip, but is not gzip data: "+err.Error())
			return false
		}
		body = zr
	case "deflate":
		// HTTP's deflate is the zlib format (RFC 9110 8.4.1.2), which tritonclient sends.
		zr, err := zlib.NewReader(r.Body)
		if err != nil {
			writeProblem(w, r, http.StatusBadRequest, codeInvalidRequest, "the body is sent with Content-Encoding: deflate, but is not zlib data: "+err.Error())
			return false
		}
		body = zr
	default:
		writeProblem(w, r, http.StatusUnsupportedMediaType, codeUnsupportedMediaType,
			fmt.Sprintf("the body is sent with Content-Encoding: %.40s, which the server does not decode; send it uncompressed, or with gzip or deflate", enc))
		return false
	}
	r.Body = body
	r.ContentLength = -1
	r.Header.Del("Content-Encoding")
	r.Header.Del("Content-Length")
	return true
}
