package httpapi

import (
	"net/http"

	"github.com/inferd/inferd/gen/api"
	"github.com/inferd/inferd/internal/httpapi/urgency"
)

// isOIPInfer reports whether r was routed to an infer operation (the table's OIP),
// whose body the validator reads once and internal/oip decodes.
func (s *Server) isOIPInfer(r *http.Request) bool {
	op := s.ops.Lookup(http.MethodPost, routePattern(r))
	return op != nil && op.OIP
}

// oipBodyOf returns the body of an infer request that the validator has read
// (Config.OIPRead), and whether it has read one: never empty when it has.
func oipBodyOf(r *http.Request) ([]byte, bool) {
	if info := infoFrom(r.Context()); info != nil && info.oipBody != nil {
		return info.oipBody, true
	}
	return nil, false
}

// OipInfer serves an infer call with the body the validator read.
func (h onePassHandlers) OipInfer(w http.ResponseWriter, r *http.Request, model api.OIPModelName, params api.OipInferParams) {
	body, ok := oipBodyOf(r)
	if !ok {
		h.ServerInterface.OipInfer(w, r, model, params)
		return
	}
	h.s.oipServe(w, r, body, model, "", params.InferenceHeaderContentLength, params.RequestTimeout)
}

// OipInferVersion is OipInfer with the version in the path.
func (h onePassHandlers) OipInferVersion(w http.ResponseWriter, r *http.Request, model api.OIPModelName, version api.OIPModelVersion, params api.OipInferVersionParams) {
	body, ok := oipBodyOf(r)
	if !ok {
		h.ServerInterface.OipInferVersion(w, r, model, version, params)
		return
	}
	h.s.oipServe(w, r, body, model, version, params.InferenceHeaderContentLength, params.RequestTimeout)
}

func (s *Server) oipServe(w http.ResponseWriter, r *http.Request, body []byte, model, version string, headerLen *int, timeout *string) {
	ctx, cancel, err := urgency.ClientTimeout(r.Context(), timeout)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	defer cancel()
	res, err := s.Infer(ctx, model, version, headerLen, body)
	err = urgency.TimedOut(ctx, timeout, err)
	if err == nil {
		err = res.Write(w)
	}
	if err != nil {
		s.writeError(w, r, err)
	}
}
