package httpapi

import (
	"net/http"

	"github.com/inferd/inferd/gen/api"
	"github.com/inferd/inferd/internal/httpapi/validator"
)

// isOIPInfer reports whether r was routed to an infer operation (the table's OIP),
// whose body the validator reads once and internal/oip decodes.
func (s *Server) isOIPInfer(r *http.Request) bool {
	op := s.ops.Lookup(http.MethodPost, routePattern(r))
	return op != nil && op.OIP
}

// OipInfer serves an infer call with the body the validator read.
func (h onePassHandlers) OipInfer(w http.ResponseWriter, r *http.Request, model api.OIPModelName, params api.OipInferParams) {
	if _, ok := validator.OIPBody(r.Context()); !ok {
		h.ServerInterface.OipInfer(w, r, model, params)
		return
	}
	h.s.oipServe(w, r, model, "", params.InferenceHeaderContentLength, params.RequestTimeout)
}

// OipInferVersion is OipInfer with the version in the path.
func (h onePassHandlers) OipInferVersion(w http.ResponseWriter, r *http.Request, model api.OIPModelName, version api.OIPModelVersion, params api.OipInferVersionParams) {
	if _, ok := validator.OIPBody(r.Context()); !ok {
		h.ServerInterface.OipInferVersion(w, r, model, version, params)
		return
	}
	h.s.oipServe(w, r, model, version, params.InferenceHeaderContentLength, params.RequestTimeout)
}

func (s *Server) oipServe(w http.ResponseWriter, r *http.Request, model, version string, headerLen *int, timeout *string) {
	body, _ := validator.OIPBody(r.Context())
	ctx, cancel, err := clientTimeout(r.Context(), timeout)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	defer cancel()
	res, err := s.Infer(ctx, model, version, headerLen, body)
	err = timedOut(ctx, timeout, err)
	if err == nil {
		err = res.Write(w)
	}
	if err != nil {
		s.writeError(w, r, err)
	}
}
