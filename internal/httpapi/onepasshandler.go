package httpapi

import (
	"net/http"

	"github.com/inferd/inferd/gen/api"
)

// onePassHandlers is the generated strict handler with the four predict operations
// taking the body decodeOnce decoded, instead of decoding it a second time. A
// request that reached them without one (no validator in front) is left to the
// generated handler.
type onePassHandlers struct {
	api.ServerInterface
	s *Server
}

func onePassBody(r *http.Request) *predictInput {
	if info := infoFrom(r.Context()); info != nil {
		return info.body
	}
	return nil
}

func (h onePassHandlers) Predict(w http.ResponseWriter, r *http.Request) {
	in := onePassBody(r)
	if in == nil {
		h.ServerInterface.Predict(w, r)
		return
	}
	resp, err := h.s.Predict(r.Context(), api.PredictRequestObject{Body: &api.PredictRequest{Model: in.model, Version: in.version, Data: in.data}})
	switch res := resp.(type) {
	case api.Predict200JSONResponse:
		if err == nil {
			err = writeJSON(w, res.Body, res.Headers.XModelVersion)
		}
	case nil:
	default:
		if err == nil {
			err = res.VisitPredictResponse(w)
		}
	}
	if err != nil {
		h.s.writeError(w, r, err)
	}
}

func (h onePassHandlers) PredictBatch(w http.ResponseWriter, r *http.Request) {
	in := onePassBody(r)
	if in == nil {
		h.ServerInterface.PredictBatch(w, r)
		return
	}
	resp, err := h.s.PredictBatch(r.Context(), api.PredictBatchRequestObject{Body: &api.BatchPredictRequest{Model: in.model, Version: in.version, Items: in.items}})
	switch res := resp.(type) {
	case api.PredictBatch200JSONResponse:
		if err == nil {
			err = writeJSON(w, res.Body, res.Headers.XModelVersion)
		}
	case nil:
	default:
		if err == nil {
			err = res.VisitPredictBatchResponse(w)
		}
	}
	if err != nil {
		h.s.writeError(w, r, err)
	}
}

func (h onePassHandlers) SubmitJob(w http.ResponseWriter, r *http.Request) {
	in := onePassBody(r)
	if in == nil {
		h.ServerInterface.SubmitJob(w, r)
		return
	}
	resp, err := h.s.SubmitJob(r.Context(), api.SubmitJobRequestObject{Body: &api.PredictRequest{Model: in.model, Version: in.version, Data: in.data}})
	switch res := resp.(type) {
	case api.SubmitJob200JSONResponse:
		if err == nil {
			err = writeJSON(w, api.AsyncSubmitResponse(res), nil)
		}
	case nil:
	default:
		if err == nil {
			err = res.VisitSubmitJobResponse(w)
		}
	}
	if err != nil {
		h.s.writeError(w, r, err)
	}
}

func (h onePassHandlers) SubmitBatchJob(w http.ResponseWriter, r *http.Request) {
	in := onePassBody(r)
	if in == nil {
		h.ServerInterface.SubmitBatchJob(w, r)
		return
	}
	resp, err := h.s.SubmitBatchJob(r.Context(), api.SubmitBatchJobRequestObject{Body: &api.BatchPredictRequest{Model: in.model, Version: in.version, Items: in.items}})
	switch res := resp.(type) {
	case api.SubmitBatchJob200JSONResponse:
		if err == nil {
			err = writeJSON(w, api.AsyncSubmitResponse(res), nil)
		}
	case nil:
	default:
		if err == nil {
			err = res.VisitSubmitBatchJobResponse(w)
		}
	}
	if err != nil {
		h.s.writeError(w, r, err)
	}
}
