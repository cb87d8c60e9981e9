package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/inferd/inferd/internal/pipeline"
	"github.com/inferd/inferd/internal/registry"
)

// versionVecs are the collectors labelled by model and version whose children are
// resolved once per version (Metrics.Version), so that a request observes them
// without hashing label values.
type versionVecs struct {
	state     *prometheus.GaugeVec
	failures  *prometheus.CounterVec
	failed    *prometheus.GaugeVec
	fallbacks *prometheus.CounterVec
	inflight  *prometheus.GaugeVec
	latency   *histogramVec
}

// states are the values of inferd_model_state's state label.
var states = []registry.Status{registry.StatusLoading, registry.StatusReady, registry.StatusFailed}

func newVersionVecs() versionVecs {
	return versionVecs{
		state: gaugeVec("model_state",
			"Load state of each model version: 1 for the state it is in (loading, ready, failed), 0 for the others.",
			"model", "version", "state"),
		failures: counterVec("model_load_failures_total",
			"Loads of a model version that failed (at start or by a reload), including configs rejected at discovery.",
			"model", "version"),
		failed: gaugeVec("model_load_failed",
			"1 while the last load of a model version (at start, a reload or a repository load) failed, whether or not a pipeline loaded before still serves it; 0 once a load succeeds.",
			"model", "version"),
		fallbacks: counterVec("routing_fallbacks_total",
			"Requests without a version that the routing rule chose this version for, sent to another version of the rule because this one has no pipeline.",
			"model", "version"),
		inflight: gaugeVec("model_requests_in_flight",
			"Prediction calls (sync requests and job runs) running on a model version now.",
			"model", "version"),
		latency: newHistogramVec("model_request_duration_seconds",
			"End-to-end time of a prediction call on a model version, from routing to its results: batcher queue, preprocessing, model and postprocessing.",
			[]float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}, "model", "version"),
	}
}

func (v versionVecs) register(reg prometheus.Registerer) {
	reg.MustRegister(v.state, v.failures, v.failed, v.fallbacks, v.inflight, v.latency)
}

// versionMetrics is one version's resolved children.
type versionMetrics struct {
	m              *Metrics
	model, version string
	state          [3]prometheus.Gauge // in the order of states
	failures       prometheus.Counter
	failed         prometheus.Gauge
	fallbacks      prometheus.Counter
	inflight       prometheus.Gauge
	latency        prometheus.Observer
}

var _ registry.VersionObserver = (*versionMetrics)(nil)

// Version implements registry.Observer. It also starts the version's labelled
// counters at zero, so they exist before the first event.
func (m *Metrics) Version(model, version string) registry.VersionObserver {
	m.held.mu.Lock() // not while a forgetting of the same version deletes its series
	defer m.held.mu.Unlock()
	v := m.versions
	out := &versionMetrics{
		m: m, model: model, version: version,
		failures:  v.failures.WithLabelValues(model, version),
		failed:    v.failed.WithLabelValues(model, version),
		fallbacks: v.fallbacks.WithLabelValues(model, version),
		inflight:  v.inflight.WithLabelValues(model, version),
		latency:   v.latency.WithLabelValues(model, version),
	}
	for i, s := range states {
		out.state[i] = v.state.WithLabelValues(model, version, string(s))
	}
	// Histograms too, so that dashboards show every known version from the start.
	m.batchSize.WithLabelValues(model, version)
	for _, stage := range []pipeline.Stage{pipeline.StagePreprocess, pipeline.StageModel, pipeline.StagePostprocess} {
		m.stageDuration.WithLabelValues(model, version, string(stage))
	}
	for _, mode := range []registry.Mode{registry.ModeSync, registry.ModeAsync} {
		m.predictItems.WithLabelValues(model, version, string(mode))
		for _, o := range []registry.Outcome{registry.OutcomeSuccess, registry.OutcomeInvalidInput, registry.OutcomeError, registry.OutcomeUnavailable} {
			m.predictions.WithLabelValues(model, version, string(mode), string(o))
		}
	}
	m.held.announce(out)
	return out
}

func (v *versionMetrics) State(s registry.Status) {
	if s == registry.StatusReady { // only a load that succeeded puts a version ready
		v.failed.Set(0)
	}
	for i, st := range states {
		if st == s {
			v.state[i].Set(1)
		} else {
			v.state[i].Set(0)
		}
	}
}

func (v *versionMetrics) LoadFailed()         { v.failures.Inc(); v.failed.Set(1) }
func (v *versionMetrics) RoutedAway()         { v.fallbacks.Inc() }
func (v *versionMetrics) Begin()              { v.inflight.Inc() }
func (v *versionMetrics) End(d time.Duration) { v.inflight.Dec(); v.latency.Observe(d.Seconds()) }

// Forgotten deletes the version's series (see Metrics.forget).
func (v *versionMetrics) Forgotten() { v.m.forget(v) }
