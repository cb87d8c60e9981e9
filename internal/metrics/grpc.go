package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// grpcVecs are the gRPC listener's own metrics; what a call does to a model is counted
// by the model metrics whichever protocol it came by.
type grpcVecs struct {
	requests *prometheus.CounterVec
	duration *histogramVec
	children *children[grpcKey, callObs]
}

type grpcKey struct{ method, code string }

func newGRPCVecs(reg prometheus.Registerer) grpcVecs {
	v := grpcVecs{
		requests: counterVec("grpc_requests_total",
			"gRPC calls by method (the service's method name, as ModelInfer) and status code (OK, INVALID_ARGUMENT, ...).",
			"method", "code"),
		duration: newHistogramVec("grpc_request_duration_seconds",
			"gRPC call latency by method and status code.",
			[]float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}, "method", "code"),
	}
	reg.MustRegister(v.requests, v.duration)
	v.children = newChildren(kept(func(k grpcKey) callObs {
		return callObs{requests: v.requests.WithLabelValues(k.method, k.code), duration: v.duration.WithLabelValues(k.method, k.code)}
	}))
	return v
}

// GRPC records one gRPC call.
func (m *Metrics) GRPC(method, code string, d time.Duration) {
	m.grpc.children.get(grpcKey{method, code}).record(d)
}

// ObserveGRPCConnections registers a gauge read at scrape time, the connections open
// now on the gRPC port: the listener's connections count against MAX_CONNECTIONS apart
// from HTTP's, which inferd_connections_open counts.
func (m *Metrics) ObserveGRPCConnections(open func() int) {
	m.reg.MustRegister(gaugeFunc("grpc_connections_open", "Connections open now on the gRPC port, idle ones included.", open))
}
