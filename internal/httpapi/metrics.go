package httpapi

import (
	"context"
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"

	"github.com/inferd/inferd/gen/api"
)

// metricsResponse writes the gathered metrics in the Prometheus text format. It is a
// response type of its own because the generated one takes a pre-rendered string and
// labels it plain text without the format version scrapers look for.
type metricsResponse struct {
	gatherer prometheus.Gatherer
}

func (m metricsResponse) VisitMetricsResponse(w http.ResponseWriter) error {
	families, err := m.gatherer.Gather()
	if err != nil && len(families) == 0 {
		return err
	}
	format := expfmt.NewFormat(expfmt.TypeTextPlain)
	w.Header().Set("Content-Type", string(format))
	w.WriteHeader(http.StatusOK)
	enc := expfmt.NewEncoder(w, format)
	for _, f := range families {
		if err := enc.Encode(f); err != nil {
			return err
		}
	}
	return nil
}

// Metrics serves the Prometheus metrics.
func (s *Server) Metrics(context.Context, api.MetricsRequestObject) (api.MetricsResponseObject, error) {
	return metricsResponse{gatherer: s.opts.Gatherer}, nil
}
