package metrics

import (
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/inferd/inferd/internal/job"
	"github.com/inferd/inferd/internal/pipeline"
	"github.com/inferd/inferd/internal/registry"
)

const namespace = "inferd"

// Metrics holds the collectors. It implements registry.Observer and job.Observer.
type Metrics struct {
	httpRequests  *prometheus.CounterVec
	httpDuration  *prometheus.HistogramVec
	predictions   *prometheus.CounterVec
	predictItems  *prometheus.CounterVec
	stageDuration *prometheus.HistogramVec
	jobsFinished  *prometheus.CounterVec
	jobDuration   prometheus.Histogram
	modelsLoaded  prometheus.Gauge
	reloads       *prometheus.CounterVec
	rateLimited   *prometheus.CounterVec
	rateFallbacks prometheus.Counter
	batchSize     *prometheus.HistogramVec
	batchQueue    *prometheus.HistogramVec
	jobWait       prometheus.Histogram
	versions      versionVecs
	reg           prometheus.Registerer
}

var (
	_ registry.Observer = (*Metrics)(nil)
	_ job.Observer      = (*Metrics)(nil)
)

// New registers inferd's collectors, plus the Go and process collectors, on reg.
func New(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		reg: reg,
		httpRequests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Name: "http_requests_total",
			Help: "HTTP requests by operation (the contract's operationId) and status code.",
		}, []string{"operation", "code"}),
		httpDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: namespace, Name: "http_request_duration_seconds",
			Help:    "HTTP request latency by operation and status code.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"operation", "code"}),
		predictions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Name: "predictions_total",
			Help: "Prediction calls (a batch counts once) by model, version, mode (sync, async) and outcome.",
		}, []string{"model", "version", "mode", "outcome"}),
		predictItems: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Name: "prediction_items_total",
			Help: "Items predicted, by model, version and mode.",
		}, []string{"model", "version", "mode"}),
		stageDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: namespace, Name: "pipeline_stage_duration_seconds",
			Help:    "Time spent in each pipeline stage (preprocess, model, postprocess) per call.",
			Buckets: []float64{.00001, .00005, .0001, .0005, .001, .005, .01, .05, .1, .5, 1, 5},
		}, []string{"model", "version", "stage"}),
		jobsFinished: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Name: "jobs_finished_total",
			Help: "Jobs that ran to a final status (succeeded, failed), by status.",
		}, []string{"status"}),
		jobDuration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Namespace: namespace, Name: "job_duration_seconds",
			Help:    "Time from a job's start to its finish.",
			Buckets: prometheus.ExponentialBuckets(0.0005, 4, 10),
		}),
		modelsLoaded: prometheus.NewGauge(prometheus.GaugeOpts{
			Namespace: namespace, Name: "models_loaded",
			Help: "Pipelines currently loaded in memory.",
		}),
		reloads: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Name: "model_reloads_total",
			Help: "Hot reloads by outcome (success, failure).",
		}, []string{"outcome"}),
		batchSize: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: namespace, Name: "batch_size",
			Help:    "Items per model (backend) call, by model and version: above 1 when dynamic batching coalesced requests, or for /predict/batch.",
			Buckets: []float64{1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024},
		}, []string{"model", "version"}),
		batchQueue: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: namespace, Name: "batch_queue_seconds",
			Help:    "Time a request waited in a version's dynamic batcher before its items went to the model.",
			Buckets: []float64{.00001, .00005, .0001, .0005, .001, .002, .005, .01, .05, .1, .5, 1},
		}, []string{"model", "version"}),
		rateLimited: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Name: "rate_limited_requests_total",
			Help: "Requests refused with 429 by the per-key rate limit, by operation.",
		}, []string{"operation"}),
		jobWait: prometheus.NewHistogram(prometheus.HistogramOpts{
			Namespace: namespace, Name: "job_queue_wait_seconds",
			Help:    "Time from a job's submission to its start: how long it waited for a worker.",
			Buckets: prometheus.ExponentialBuckets(0.0005, 4, 10),
		}),
		versions: newVersionVecs(),
		rateFallbacks: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: namespace, Name: "rate_limit_local_fallbacks_total",
			Help: "Requests whose rate limit this server decided alone, with its own bucket, because the limit shared through Redis could not be reached.",
		}),
	}
	reg.MustRegister(m.rateFallbacks, m.httpRequests, m.httpDuration, m.predictions, m.predictItems, m.stageDuration,
		m.jobsFinished, m.jobDuration, m.jobWait, m.modelsLoaded, m.reloads, m.rateLimited, m.batchSize, m.batchQueue,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m.versions.register(reg)
	// Counters without model labels start at zero for every value they can take, so a
	// rate() or an alert sees them before their first event.
	for _, outcome := range []string{"success", "failure"} {
		m.reloads.WithLabelValues(outcome)
	}
	for _, status := range []job.Status{job.StatusSucceeded, job.StatusFailed} {
		m.jobsFinished.WithLabelValues(string(status))
	}
	return m
}

// RateLimitedOperations starts inferd_rate_limited_requests_total at zero for the
// operations the rate limit applies to.
func (m *Metrics) RateLimitedOperations(ops []string) {
	for _, op := range ops {
		m.rateLimited.WithLabelValues(op)
	}
}

// ObserveWorkers registers a gauge read at scrape time: the processes taking jobs.
func (m *Metrics) ObserveWorkers(workers func() int) {
	m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Namespace: namespace, Name: "job_workers",
		Help: "Processes taking jobs: the inferd-worker processes the queue has a heartbeat from, or 1 when the server runs jobs itself.",
	}, func() float64 { return float64(workers()) }))
}

// ObserveQueue registers gauges read at scrape time: jobs waiting and jobs running.
func (m *Metrics) ObserveQueue(queued, running func() int) {
	m.reg.MustRegister(
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: namespace, Name: "jobs_queued", Help: "Jobs waiting for a worker."},
			func() float64 { return float64(queued()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: namespace, Name: "jobs_running", Help: "Jobs running now."},
			func() float64 { return float64(running()) }),
	)
}

// HTTP records one request.
func (m *Metrics) HTTP(operation string, code int, d time.Duration) {
	c := statusLabel(code)
	m.httpRequests.WithLabelValues(operation, c).Inc()
	m.httpDuration.WithLabelValues(operation, c).Observe(d.Seconds())
}

// RateLimited records a request refused by the rate limit.
func (m *Metrics) RateLimited(operation string) { m.rateLimited.WithLabelValues(operation).Inc() }

// RateLimitFallback counts a request whose rate limit was decided by the local bucket
// because the shared one could not be reached.
func (m *Metrics) RateLimitFallback() { m.rateFallbacks.Inc() }

// Stage implements registry.Observer.
func (m *Metrics) Stage(model, version string, stage pipeline.Stage, d time.Duration) {
	m.stageDuration.WithLabelValues(model, version, string(stage)).Observe(d.Seconds())
}

// Predicted implements registry.Observer.
func (m *Metrics) Predicted(model, version string, mode registry.Mode, outcome registry.Outcome, n int) {
	m.predictions.WithLabelValues(model, version, string(mode), string(outcome)).Inc()
	m.predictItems.WithLabelValues(model, version, string(mode)).Add(float64(n))
}

// Batched implements registry.Observer.
func (m *Metrics) Batched(model, version string, n int) {
	m.batchSize.WithLabelValues(model, version).Observe(float64(n))
}

// Queued implements registry.Observer.
func (m *Metrics) Queued(model, version string, d time.Duration) {
	m.batchQueue.WithLabelValues(model, version).Observe(d.Seconds())
}

// Loaded implements registry.Observer.
func (m *Metrics) Loaded(n int) { m.modelsLoaded.Set(float64(n)) }

// Reloaded implements registry.Observer.
func (m *Metrics) Reloaded(ok bool) {
	outcome := "success"
	if !ok {
		outcome = "failure"
	}
	m.reloads.WithLabelValues(outcome).Inc()
}

// Started implements job.Observer: the job's wait in the queue. Running jobs are
// counted by the runner's gauge.
func (m *Metrics) Started(rec job.Record) {
	if !rec.CreatedAt.IsZero() && !rec.StartedAt.IsZero() {
		m.jobWait.Observe(max(rec.StartedAt.Sub(rec.CreatedAt), 0).Seconds())
	}
}

// Finished implements job.Observer.
func (m *Metrics) Finished(rec job.Record) {
	m.jobsFinished.WithLabelValues(string(rec.Status)).Inc()
	if !rec.StartedAt.IsZero() && !rec.FinishedAt.IsZero() {
		m.jobDuration.Observe(rec.FinishedAt.Sub(rec.StartedAt).Seconds())
	}
}

// statusLabels are the label values of the statuses, made once: strconv.Itoa
// allocates for every number above 99.
var statusLabels = func() (out [600]string) {
	for i := range out {
		out[i] = strconv.Itoa(i)
	}
	return out
}()

func statusLabel(code int) string {
	if code >= 0 && code < len(statusLabels) {
		return statusLabels[code]
	}
	return strconv.Itoa(code)
}
