package httpapi

import (
	"net/http"

	"github.com/inferd/inferd/gen/api"
	"github.com/inferd/inferd/internal/httpapi/urgency"
	"github.com/inferd/inferd/internal/httpapi/validator"
)

// onePassHandlers is the generated strict handler with the four predict operations
// taking the body the validator decoded, instead of decoding it a second time. A
// request that reached them without one (no validator in front) is left to the
// generated handler.
type onePassHandlers struct {
	api.ServerInterface
	s *Server
}

func onePassBody(r *http.Request) *validator.Input {
	if info := infoFrom(r.Context()); info != nil {
		return info.body
	}
	return nil
}

// answer writes what an operation answered, as the generated strict handler would,
// save that its 200 (of type OK, whose body and X-Model-Version ok returns) goes
// through writeJSON: any other answer writes itself through visit, and an error is a
// problem. ok and visit are functions without state, so that answer allocates nothing
// of its own on the hot path.
func answer[Resp, OK any](s *Server, w http.ResponseWriter, r *http.Request, resp Resp, err error,
	ok func(OK) (body any, version *string), visit func(Resp, http.ResponseWriter) error) {
	if err == nil {
		if res, isOK := any(resp).(OK); isOK {
			body, version := ok(res)
			err = writeJSON(w, body, version, s.opts.MaxResponseBytes)
		} else if any(resp) != nil {
			err = visit(resp, w)
		}
	}
	if err != nil {
		s.writeError(w, r, err)
	}
}

func (h onePassHandlers) Predict(w http.ResponseWriter, r *http.Request, params api.PredictParams) {
	in := onePassBody(r)
	if in == nil {
		h.ServerInterface.Predict(w, r, params)
		return
	}
	resp, err := h.s.Predict(r.Context(), api.PredictRequestObject{Params: params, Body: &api.PredictRequest{Model: in.Model, Version: in.Version, Data: in.Data}})
	answer(h.s, w, r, resp, err, func(res api.Predict200JSONResponse) (any, *string) {
		return res.Body, res.Headers.XModelVersion
	}, api.PredictResponseObject.VisitPredictResponse)
}

func (h onePassHandlers) PredictBatch(w http.ResponseWriter, r *http.Request, params api.PredictBatchParams) {
	in := onePassBody(r)
	if in == nil {
		h.ServerInterface.PredictBatch(w, r, params)
		return
	}
	resp, err := h.s.PredictBatch(r.Context(), api.PredictBatchRequestObject{Params: params, Body: &api.BatchPredictRequest{Model: in.Model, Version: in.Version, Items: in.Items, OnError: onError(in)}})
	answer(h.s, w, r, resp, err, func(res api.PredictBatch200JSONResponse) (any, *string) {
		return res.Body, res.Headers.XModelVersion
	}, api.PredictBatchResponseObject.VisitPredictBatchResponse)
}

func (h onePassHandlers) SubmitJob(w http.ResponseWriter, r *http.Request, params api.SubmitJobParams) {
	in := onePassBody(r)
	if in == nil {
		h.ServerInterface.SubmitJob(w, r, params)
		return
	}
	resp, err := h.s.SubmitJob(r.Context(), api.SubmitJobRequestObject{Params: params, Body: &api.AsyncPredictRequest{Model: in.Model, Version: in.Version, Data: in.Data,
		Priority: urgency.Priority(in), Deadline: urgency.Deadline(in), CallbackUrl: callbackURL(in)}})
	answer(h.s, w, r, resp, err, func(res api.SubmitJob200JSONResponse) (any, *string) {
		return api.AsyncSubmitResponse(res), nil
	}, api.SubmitJobResponseObject.VisitSubmitJobResponse)
}

func (h onePassHandlers) SubmitBatchJob(w http.ResponseWriter, r *http.Request, params api.SubmitBatchJobParams) {
	in := onePassBody(r)
	if in == nil {
		h.ServerInterface.SubmitBatchJob(w, r, params)
		return
	}
	resp, err := h.s.SubmitBatchJob(r.Context(), api.SubmitBatchJobRequestObject{Params: params, Body: &api.AsyncBatchPredictRequest{Model: in.Model, Version: in.Version, Items: in.Items,
		Priority: urgency.Priority(in), Deadline: urgency.Deadline(in), CallbackUrl: callbackURL(in), OnError: onError(in)}})
	answer(h.s, w, r, resp, err, func(res api.SubmitBatchJob200JSONResponse) (any, *string) {
		return api.AsyncSubmitResponse(res), nil
	}, api.SubmitBatchJobResponseObject.VisitSubmitBatchJobResponse)
}

// onError is the batch's on_error as the generated body holds it.
func onError(in *validator.Input) *api.BatchOnError {
	if in.OnError == "" {
		return nil
	}
	e := api.BatchOnError(in.OnError)
	return &e
}

// callbackURL is the submission's callback_url as the generated body holds it.
func callbackURL(in *validator.Input) *api.CallbackURL {
	if in.CallbackURL == "" {
		return nil
	}
	return &in.CallbackURL
}
