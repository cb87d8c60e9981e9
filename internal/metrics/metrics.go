package metrics

import (
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/inferd/inferd/internal/graph"
	"github.com/inferd/inferd/internal/job"
	"github.com/inferd/inferd/internal/pipeline"
	"github.com/inferd/inferd/internal/registry"
	"github.com/inferd/inferd/internal/webhook"
)

const namespace = "inferd"

// Metrics holds the collectors. It implements registry.Observer and job.Observer.
type Metrics struct {
	httpRequests  *prometheus.CounterVec
	httpDuration  *histogramVec
	predictions   *prometheus.CounterVec
	predictItems  *prometheus.CounterVec
	stageDuration *histogramVec
	graphSteps    *histogramVec
	jobsFinished  *prometheus.CounterVec
	jobDuration   prometheus.Histogram
	modelsLoaded  prometheus.Gauge
	reloads       *prometheus.CounterVec
	rateLimited   *prometheus.CounterVec
	rateFallbacks prometheus.Counter
	plainAsynq    *prometheus.GaugeVec
	connsRefused  *prometheus.CounterVec
	batchSize     *histogramVec
	batchQueue    *histogramVec
	jobWait       prometheus.Histogram
	hookAttempts  *prometheus.CounterVec
	hooksDone     *prometheus.CounterVec
	versions      versionVecs
	grpc          grpcVecs
	reg           prometheus.Registerer
	held          held

	// The children of the vectors above that every prediction touches, by label values.
	httpChildren    *children[httpKey, callObs]
	predictChildren *children[predictKey, predictObs]
	stageChildren   *children[stageKey, prometheus.Observer]
	graphChildren   *children[graphKey, prometheus.Observer]
	batchChildren   *children[versionKey, prometheus.Observer]
	queueChildren   *children[versionKey, prometheus.Observer]
}

type httpKey struct {
	operation string
	code      int
}

// callObs are the children an HTTP request or a gRPC call counts and times itself in.
type callObs struct {
	requests prometheus.Counter
	duration prometheus.Observer
}

func (o callObs) record(d time.Duration) {
	o.requests.Inc()
	o.duration.Observe(d.Seconds())
}

type versionKey struct{ model, version string }

type predictKey struct {
	versionKey
	mode    registry.Mode
	outcome registry.Outcome
}

type predictObs struct {
	calls, items prometheus.Counter
}

type graphKey struct {
	versionKey
	step    string
	outcome graph.Outcome
}

type stageKey struct {
	versionKey
	stage pipeline.Stage
}

// nopObserver observes into nothing.
type nopObserver struct{}

func (nopObserver) Observe(float64) {}

var (
	_ registry.Observer = (*Metrics)(nil)
	_ job.Observer      = (*Metrics)(nil)
	_ webhook.Observer  = (*Metrics)(nil)
)

// New registers inferd's collectors, plus the Go and process collectors, on reg.
func New(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		reg: reg,
		httpRequests: counterVec("http_requests_total",
			"HTTP requests by operation (the contract's operationId) and status code.",
			"operation", "code"),
		httpDuration: newHistogramVec("http_request_duration_seconds",
			"HTTP request latency by operation and status code.",
			[]float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}, "operation", "code"),
		predictions: counterVec("predictions_total",
			"Prediction calls (a batch counts once) by model, version, mode (sync, async) and outcome.",
			"model", "version", "mode", "outcome"),
		predictItems: counterVec("prediction_items_total",
			"Items predicted, by model, version and mode.",
			"model", "version", "mode"),
		stageDuration: newHistogramVec("pipeline_stage_duration_seconds",
			"Time spent in each pipeline stage (preprocess, model, postprocess) per call.",
			[]float64{.00001, .00005, .0001, .0005, .001, .005, .01, .05, .1, .5, 1, 5}, "model", "version", "stage"),
		graphSteps: newHistogramVec("graph_step_duration_seconds",
			"Time of each step's member call in a model graph's runs, by the graph's model and version, its step and the step's outcome (answered, fallback, failed; skipped, observed as 0, counts the runs whose condition skipped it).",
			[]float64{.00001, .00005, .0001, .0005, .001, .005, .01, .05, .1, .5, 1, 5}, "model", "version", "step", "outcome"),
		jobsFinished: counterVec("jobs_finished_total",
			"Jobs that ran to a final status (succeeded, failed), by status.",
			"status"),
		jobDuration: histogram("job_duration_seconds",
			"Time from a job's start to its finish.",
			prometheus.ExponentialBuckets(0.0005, 4, 10)),
		modelsLoaded: gauge("models_loaded",
			"Pipelines currently loaded in memory."),
		reloads: counterVec("model_reloads_total",
			"Hot reloads by outcome (success, failure).",
			"outcome"),
		batchSize: newHistogramVec("batch_size",
			"Items per model (backend) call, by model and version: above 1 when dynamic batching coalesced requests, or for /predict/batch.",
			[]float64{1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024}, "model", "version"),
		batchQueue: newHistogramVec("batch_queue_seconds",
			"Time a request waited in a version's dynamic batcher before its items went to the model.",
			[]float64{.00001, .00005, .0001, .0005, .001, .002, .005, .01, .05, .1, .5, 1}, "model", "version"),
		rateLimited: counterVec("rate_limited_requests_total",
			"Requests refused with 429 by a limit before their body was read, by operation, code and model. Codes: rate_limited (the key's token bucket), concurrency_limited (the key's requests in progress), auth_throttled (failed authentications of one key from one address). The model is the one the request's path or gRPC message names, when the registry holds it; empty when the model is in a body not read yet (/predict, jobs) or is unknown.",
			"operation", "code", "model"),
		jobWait: histogram("job_queue_wait_seconds",
			"Time from a job's submission to its start: how long it waited for a worker.",
			prometheus.ExponentialBuckets(0.0005, 4, 10)),
		hookAttempts: counterVec("webhook_attempts_total",
			"Attempts at posting jobs' completion callbacks, by outcome: delivered (a 2xx answer), refused (any other answer, redirects included), timeout (no answer within WEBHOOK_TIMEOUT), forbidden (an address WEBHOOK_ALLOWED_HOSTS does not allow), error (the connection failed).",
			"outcome"),
		hooksDone: counterVec("webhook_deliveries_total",
			"Completion callbacks settled, by state: delivered, or failed (not delivered within WEBHOOK_MAX_AGE of the job's finish).",
			"state"),
		versions: newVersionVecs(),
		plainAsynq: gaugeVec("queue_plain_asynq",
			"1 while this process runs asynq as it comes, without inferd's one-round-trip submit and held dequeues, by reason: version (built with an asynq whose Redis layout inferd does not know) or dequeue_unrecognised (a worker stopped recognising asynq's dequeue and polls instead).",
			"reason"),
		rateFallbacks: counter("rate_limit_local_fallbacks_total",
			"Requests whose rate limit this server decided alone, with its own bucket, because the limit shared through Redis could not be reached."),
		connsRefused: counterVec("connections_refused_total",
			"Connections closed as soon as they were accepted, before anything was read from them, by the cap reached: max_connections (MAX_CONNECTIONS open in all) or max_connections_per_address (MAX_CONNECTIONS_PER_ADDRESS open from the peer's IP address).",
			"reason"),
	}
	reg.MustRegister(m.plainAsynq, m.rateFallbacks, m.connsRefused, m.httpRequests, m.httpDuration, m.predictions, m.predictItems, m.stageDuration, m.graphSteps,
		m.jobsFinished, m.jobDuration, m.jobWait, m.modelsLoaded, m.reloads, m.rateLimited, m.batchSize, m.batchQueue,
		m.hookAttempts, m.hooksDone, collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m.versions.register(reg)
	m.grpc = newGRPCVecs(reg)
	m.httpChildren = newChildren(kept(func(k httpKey) callObs {
		c := statusLabel(k.code)
		return callObs{requests: m.httpRequests.WithLabelValues(k.operation, c), duration: m.httpDuration.WithLabelValues(k.operation, c)}
	}))
	// A version the registry forgot gets no children, so a late event (a request in
	// flight when it went) does not bring back the series its forgetting deleted.
	discard := predictObs{calls: prometheus.NewCounter(prometheus.CounterOpts{Name: "discarded"})}
	discard.items = discard.calls
	m.predictChildren = newChildren(func(k predictKey) (predictObs, bool) {
		if m.held.gone(k.versionKey) {
			return discard, false
		}
		return predictObs{
			calls: m.predictions.WithLabelValues(k.model, k.version, string(k.mode), string(k.outcome)),
			items: m.predictItems.WithLabelValues(k.model, k.version, string(k.mode)),
		}, true
	})
	m.stageChildren = newChildren(func(k stageKey) (prometheus.Observer, bool) {
		if m.held.gone(k.versionKey) {
			return nopObserver{}, false
		}
		return m.stageDuration.WithLabelValues(k.model, k.version, string(k.stage)), true
	})
	m.graphChildren = newChildren(func(k graphKey) (prometheus.Observer, bool) {
		if m.held.gone(k.versionKey) {
			return nopObserver{}, false
		}
		return m.graphSteps.WithLabelValues(k.model, k.version, k.step, string(k.outcome)), true
	})
	m.batchChildren = newChildren(func(k versionKey) (prometheus.Observer, bool) {
		if m.held.gone(k) {
			return nopObserver{}, false
		}
		return m.batchSize.WithLabelValues(k.model, k.version), true
	})
	m.queueChildren = newChildren(func(k versionKey) (prometheus.Observer, bool) {
		if m.held.gone(k) {
			return nopObserver{}, false
		}
		return m.batchQueue.WithLabelValues(k.model, k.version), true
	})
	// Counters without model labels start at zero for every value they can take, so a
	// rate() or an alert sees them before their first event.
	for _, outcome := range []string{"success", "failure"} {
		m.reloads.WithLabelValues(outcome)
	}
	for _, status := range []job.Status{job.StatusSucceeded, job.StatusFailed} {
		m.jobsFinished.WithLabelValues(string(status))
	}
	for _, outcome := range []string{webhook.AttemptDelivered, webhook.AttemptRefused, webhook.AttemptTimeout, webhook.AttemptForbidden, webhook.AttemptError} {
		m.hookAttempts.WithLabelValues(outcome)
	}
	for _, state := range []job.CallbackState{job.CallbackDelivered, job.CallbackFailed} {
		m.hooksDone.WithLabelValues(string(state))
	}
	for _, reason := range []string{"version", "dequeue_unrecognised"} {
		m.plainAsynq.WithLabelValues(reason).Set(0)
	}
	return m
}

// RateLimitedOperations starts inferd_rate_limited_requests_total at zero for the
// operations a limit applies to, under its code, without a model.
func (m *Metrics) RateLimitedOperations(ops []string, code string) {
	for _, op := range ops {
		m.rateLimited.WithLabelValues(op, code, "")
	}
}

// JobsRunByWorkers unregisters the series of job runs (inferd_jobs_finished_total,
// inferd_job_duration_seconds, inferd_job_queue_wait_seconds): an API server in queue
// mode runs no job, so its zeros would read as jobs that never finish, and it cannot
// count the runs its workers do without each of N servers counting every one. The
// workers export them; a Prometheus that scrapes the servers alone has none, which
// the alert InferdJobRunsNotScraped reports.
func (m *Metrics) JobsRunByWorkers() {
	m.reg.Unregister(m.jobsFinished)
	m.reg.Unregister(m.jobDuration)
	m.reg.Unregister(m.jobWait)
}

// ObserveWorkers registers a gauge read at scrape time: the processes taking jobs.
func (m *Metrics) ObserveWorkers(workers func() int) {
	m.reg.MustRegister(gaugeFunc("job_workers",
		"Processes taking jobs: the inferd-worker processes the queue has a heartbeat from, or 1 when the server runs jobs itself.",
		workers))
}

// ObserveWaits registers a gauge read at scrape time: the long polls held open, each
// a connection, for an operator to see before the cap makes polls answer at once.
func (m *Metrics) ObserveWaits(held func() int) {
	m.reg.MustRegister(gaugeFunc("job_waits",
		"Long polls of a job (GET /jobs/{id}?wait=) held open now, each until its job is final or its wait runs out.",
		held))
}

// ObserveQueue registers gauges read at scrape time: jobs waiting and jobs running.
func (m *Metrics) ObserveQueue(queued, running func() int) {
	m.reg.MustRegister(gaugeFunc("jobs_queued", "Jobs waiting for a worker.", queued),
		gaugeFunc("jobs_running", "Jobs running now.", running))
}

// ObserveConnections registers a gauge read at scrape time, the connections open
// now, and starts inferd_connections_refused_total at zero for each of reasons.
func (m *Metrics) ObserveConnections(open func() int, reasons ...string) {
	m.reg.MustRegister(gaugeFunc("connections_open",
		"Connections open now on the HTTP port, idle keep-alive ones included.",
		open))
	for _, r := range reasons {
		m.connsRefused.WithLabelValues(r)
	}
}

// ConnectionRefused counts a connection closed at once because a cap was reached.
func (m *Metrics) ConnectionRefused(reason string) { m.connsRefused.WithLabelValues(reason).Inc() }

// HTTP records one request.
func (m *Metrics) HTTP(operation string, code int, d time.Duration) {
	m.httpChildren.get(httpKey{operation, code}).record(d)
}

// RateLimited records a request refused by a limit, under the problem's code and the
// model the request names: "" when it names none the registry holds, so that the
// label takes only registered model names, whatever a client sends.
func (m *Metrics) RateLimited(operation, code, model string) {
	if model == "" {
		m.rateLimited.WithLabelValues(operation, code, "").Inc()
		return
	}
	m.held.mu.Lock() // the model's series are not deleted meanwhile
	defer m.held.mu.Unlock()
	if !m.held.holds(model) {
		model = ""
	}
	m.rateLimited.WithLabelValues(operation, code, model).Inc()
}

// PlainAsynq records that this process runs plain asynq, and why.
func (m *Metrics) PlainAsynq(reason string) { m.plainAsynq.WithLabelValues(reason).Set(1) }

// RateLimitFallback counts a request whose rate limit was decided by the local bucket
// because the shared one could not be reached.
func (m *Metrics) RateLimitFallback() { m.rateFallbacks.Inc() }

// Stage implements registry.Observer.
func (m *Metrics) Stage(model, version string, stage pipeline.Stage, d time.Duration) {
	m.stageChildren.get(stageKey{versionKey{model, version}, stage}).Observe(d.Seconds())
}

// GraphStep implements repository.StepObserver: one step of a run of graph version
// model/version.
func (m *Metrics) GraphStep(model, version, step string, outcome graph.Outcome, d time.Duration) {
	m.graphChildren.get(graphKey{versionKey{model, version}, step, outcome}).Observe(d.Seconds())
}

// Predicted implements registry.Observer.
func (m *Metrics) Predicted(model, version string, mode registry.Mode, outcome registry.Outcome, n int) {
	o := m.predictChildren.get(predictKey{versionKey{model, version}, mode, outcome})
	o.calls.Inc()
	o.items.Add(float64(n))
}

// Batched implements registry.Observer.
func (m *Metrics) Batched(model, version string, n int) {
	m.batchChildren.get(versionKey{model, version}).Observe(float64(n))
}

// Queued implements registry.Observer.
func (m *Metrics) Queued(model, version string, d time.Duration) {
	m.queueChildren.get(versionKey{model, version}).Observe(d.Seconds())
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

// CallbackAttempt implements webhook.Observer.
func (m *Metrics) CallbackAttempt(outcome string) { m.hookAttempts.WithLabelValues(outcome).Inc() }

// CallbackDone implements webhook.Observer.
func (m *Metrics) CallbackDone(state job.CallbackState) {
	m.hooksDone.WithLabelValues(string(state)).Inc()
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
