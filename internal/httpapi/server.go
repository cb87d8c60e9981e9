package httpapi

import (
	"time"

	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"sync/atomic"

	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel/trace"

	"github.com/inferd/inferd/gen/api"
	"github.com/inferd/inferd/internal/admission"
	"github.com/inferd/inferd/internal/auth"
	"github.com/inferd/inferd/internal/httpapi/middleware"
	"github.com/inferd/inferd/internal/httpapi/oipapi"
	"github.com/inferd/inferd/internal/httpapi/operation"
	"github.com/inferd/inferd/internal/httpapi/redact"
	"github.com/inferd/inferd/internal/httpapi/urgency"
	"github.com/inferd/inferd/internal/job"
	"github.com/inferd/inferd/internal/jobrecord"
	"github.com/inferd/inferd/internal/metrics"
	"github.com/inferd/inferd/internal/oip"
	"github.com/inferd/inferd/internal/pipeline"
	"github.com/inferd/inferd/internal/problem"
	"github.com/inferd/inferd/internal/registry"
	"github.com/inferd/inferd/internal/webhook"
)

// The limits of Options left at zero (MAX_REQUEST_BYTES's and MAX_BATCH_ITEMS's
// defaults).
const (
	DefaultMaxRequestBytes = 1 << 20
	DefaultMaxBatchItems   = 1024
)

// ResponseBytesPerRequestByte is MAX_RESPONSE_BYTES's default, times MAX_REQUEST_BYTES:
// room for any tensor of a request sent back as JSON text, which takes at most 6 bytes
// for each byte it took as binary data (a BOOL element as "false,", an INT8 as
// "-128,"), while a model that answers a small request with a great deal more is
// refused before it ties up memory and the network.
const ResponseBytesPerRequestByte = 8

// Options configure a Server. Limits left at zero take the defaults (see
// docs/design.md#default-limits).
type Options struct {
	Registry *registry.Registry
	Jobs     *job.Service
	// Keys are the keys in force, which a reload of API_KEYS_FILE may replace while
	// the server runs.
	Keys    *auth.Keys
	Metrics *metrics.Metrics
	// Gatherer serves /metrics; usually the registry Metrics was registered on.
	Gatherer prometheus.Gatherer
	Logger   *slog.Logger
	// MaxRequestBytes caps every request body; 0 means DefaultMaxRequestBytes.
	MaxRequestBytes int64
	// MaxBatchItems caps items of a batch; 0 means DefaultMaxBatchItems.
	MaxBatchItems int
	// MaxResponseBytes caps the answers the server encodes from a model's results
	// (predictions, /v2 infer); 0 means ResponseBytesPerRequestByte × MaxRequestBytes.
	MaxResponseBytes int64
	// RateLimitRPS and RateLimitBurst set each key's token bucket on the predict-scope
	// operations; RateLimitRPS 0 disables it.
	RateLimitRPS   float64
	RateLimitBurst int
	// SharedRateLimit, when set, keeps that limit in a store shared with other servers;
	// while it cannot be reached, each server's own buckets apply it.
	SharedRateLimit admission.SharedLimiter
	// MaxConcurrentPerKey caps the requests one key has in progress at once; 0: no cap.
	MaxConcurrentPerKey int
	// AuthFailuresPerMinute is how many failed authentications one key (or none) may
	// make a minute from one client address before they are answered 429 instead of
	// 401; 0: no throttle.
	AuthFailuresPerMinute int
	// TrustedProxies are the networks whose Forwarded and X-Forwarded-For are believed
	// when telling a request's client address (TRUSTED_PROXIES); empty: the peer's
	// address is the client's.
	TrustedProxies []netip.Prefix
	// CORSAllowedOrigins are the origins browsers may call the API from, or just "*";
	// empty: no CORS headers at all.
	CORSAllowedOrigins []string
	// Callbacks are the hosts a submission's callback_url may name
	// (WEBHOOK_ALLOWED_HOSTS); the zero value refuses every callback.
	Callbacks webhook.AllowList
	// QueueUI, when set, is served at /admin/queues for admin keys (asynqmon in queue
	// mode). It must be built with /admin/queues as its root path.
	QueueUI http.Handler
	// QueueControl, when set, answers the dashboard's pause and resume of a queue.
	QueueControl job.QueueControl
	// ModelsDir is the model repository (MODELS_DIR): /ready shows the paths in load
	// errors relative to it, never the server's own layout.
	ModelsDir string
	// ReadyAllowFailed lets /ready answer 200 when versions failed to load
	// (READY_ALLOW_FAILED); false is strict readiness.
	ReadyAllowFailed bool
	// Tracer, when set, traces every request but the probes (TracerProvider must be
	// its provider, for otelhttp's server span); nil: tracing off, at no cost.
	Tracer         trace.Tracer
	TracerProvider trace.TracerProvider
	// PublicURL, when set, is the absolute URL the served contract and Swagger UI
	// advertise as the server (PUBLIC_URL); unset, the contract's relative "/" stands.
	PublicURL string
}

// Server implements the contract's strict interface.
type Server struct {
	// Handlers serve the Open Inference Protocol's operations of the strict interface.
	*oipapi.Handlers
	opts      Options
	reg       *registry.Registry
	jobs      *job.Service
	keys      *auth.Keys
	metrics   *metrics.Metrics
	log       *slog.Logger
	admission *admission.Admission // the keys and their limits, shared with gRPC
	wording   *problem.Wording     // words the domain's errors, as gRPC does
	proxies   proxies
	oip       *oip.Service     // the protocol's calls about the server and its models
	ops       *operation.Table // the contract's operations, read by Handler
	draining  atomic.Bool      // set by Drain
	conns     atomic.Int32     // open connections, counted by ConnState
	redact    redact.Redactor  // load errors as clients see them
}

var _ api.StrictServerInterface = (*Server)(nil)

// proxies tells the client address the failed-key throttle counts by (gate.go).
type proxies struct{ middleware.Proxies }

func (p proxies) clientAddr(r *http.Request) string { return p.ClientAddr(r) }

// NewServer checks opts and returns a Server; Handler builds its HTTP handler.
func NewServer(opts Options) (*Server, error) {
	if opts.Registry == nil || opts.Jobs == nil || opts.Keys == nil || opts.Metrics == nil || opts.Gatherer == nil {
		return nil, fmt.Errorf("httpapi: Registry, Jobs, Keys, Metrics and Gatherer are required")
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.MaxRequestBytes <= 0 {
		opts.MaxRequestBytes = DefaultMaxRequestBytes
	}
	if opts.MaxBatchItems <= 0 {
		opts.MaxBatchItems = DefaultMaxBatchItems
	}
	if opts.MaxResponseBytes <= 0 {
		opts.MaxResponseBytes = ResponseBytesPerRequestByte * opts.MaxRequestBytes
	}
	adm, err := admission.New(admission.Options{
		Keys: opts.Keys, Metrics: opts.Metrics, Logger: opts.Logger,
		RateLimitRPS: opts.RateLimitRPS, RateLimitBurst: opts.RateLimitBurst, SharedRateLimit: opts.SharedRateLimit,
		MaxConcurrentPerKey: opts.MaxConcurrentPerKey, AuthFailuresPerMinute: opts.AuthFailuresPerMinute,
	})
	if err != nil {
		return nil, err
	}
	s := &Server{
		opts: opts, reg: opts.Registry, jobs: opts.Jobs, keys: opts.Keys, metrics: opts.Metrics,
		log: opts.Logger, admission: adm, redact: redact.New(opts.ModelsDir),
		proxies: proxies{opts.TrustedProxies},
	}
	s.wording = &problem.Wording{Log: opts.Logger, LoadErrorText: s.redact.LoadError}
	s.oip = &oip.Service{
		Registry: opts.Registry,
		// The protocol's readiness answers as Ready does, so the probes never disagree.
		Ready: func(ctx context.Context) (bool, error) {
			resp, err := s.Ready(ctx, api.ReadyRequestObject{})
			_, ok := resp.(api.Ready200JSONResponse)
			return ok, err
		},
		LoadErrorText: s.redact.LoadError,
	}
	s.Handlers = oipapi.New(oipapi.Config{
		Service: s.oip, Registry: opts.Registry, MaxBatchItems: opts.MaxBatchItems, MaxResponseBytes: opts.MaxResponseBytes,
	})
	return s, nil
}

// Predict runs one synchronous prediction.
func (s *Server) Predict(ctx context.Context, req api.PredictRequestObject) (api.PredictResponseObject, error) {
	b := req.Body
	ctx, cancel, err := urgency.ClientTimeout(ctx, req.Params.RequestTimeout)
	if err != nil {
		return nil, err
	}
	defer cancel()
	pred, err := s.reg.Predict(ctx, registry.Request{Model: b.Model, Version: b.Version, Items: []json.RawMessage{b.Data}})
	if err != nil {
		return nil, urgency.TimedOut(ctx, req.Params.RequestTimeout, inputIn(err, false))
	}
	return api.Predict200JSONResponse{
		Body:    api.Prediction{Model: pred.Model, Version: pred.Version, Result: pred.Results[0]},
		Headers: api.Predict200ResponseHeaders{XModelVersion: &pred.Version},
	}, nil
}

// PredictBatch runs a synchronous batch as one pipeline call. With on_error continue,
// the items whose input is refused fail alone: the answer is a 200 that lists them.
func (s *Server) PredictBatch(ctx context.Context, req api.PredictBatchRequestObject) (api.PredictBatchResponseObject, error) {
	b := req.Body
	if err := s.checkItems(len(b.Items)); err != nil {
		return nil, err
	}
	ctx, cancel, err := urgency.ClientTimeout(ctx, req.Params.RequestTimeout)
	if err != nil {
		return nil, err
	}
	defer cancel()
	pred, err := s.reg.Predict(ctx, registry.Request{Model: b.Model, Version: b.Version, Items: b.Items, EachItem: eachItem(b.OnError)})
	if err != nil {
		return nil, urgency.TimedOut(ctx, req.Params.RequestTimeout, inputIn(err, true))
	}
	body := api.BatchPrediction{Model: pred.Model, Version: pred.Version, Results: pred.Results}
	if len(pred.Failed) > 0 {
		body.ItemErrors = make([]api.BatchItemError, len(pred.Failed))
		for k, ie := range pred.Failed {
			body.Results[ie.Item] = json.RawMessage("null")
			body.ItemErrors[k] = itemError(ie.Item, inputIn(ie, true))
		}
	}
	return api.PredictBatch200JSONResponse{
		Body:    body,
		Headers: api.PredictBatch200ResponseHeaders{XModelVersion: &pred.Version},
	}, nil
}

// SubmitJob records and queues a single asynchronous prediction.
func (s *Server) SubmitJob(ctx context.Context, req api.SubmitJobRequestObject) (api.SubmitJobResponseObject, error) {
	b := req.Body
	rec, err := s.submit(ctx, req.Params.IdempotencyKey, "submitJob", job.Submission{Model: b.Model, Version: b.Version, Input: b.Data, CallbackURL: deref(b.CallbackUrl)}, urgency.Job{Priority: b.Priority, Deadline: b.Deadline})
	if err != nil {
		return nil, err
	}
	return api.SubmitJob200JSONResponse(rec), nil
}

// SubmitBatchJob records and queues a batch asynchronous prediction.
func (s *Server) SubmitBatchJob(ctx context.Context, req api.SubmitBatchJobRequestObject) (api.SubmitBatchJobResponseObject, error) {
	b := req.Body
	if err := s.checkItems(len(b.Items)); err != nil {
		return nil, err
	}
	input, err := job.EncodeJSON(b.Items)
	if err != nil {
		return nil, err
	}
	resp, err := s.submit(ctx, req.Params.IdempotencyKey, "submitBatchJob", job.Submission{Model: b.Model, Version: b.Version, Batch: true, EachItem: eachItem(b.OnError),
		Input: input, CallbackURL: deref(b.CallbackUrl)}, urgency.Job{Priority: b.Priority, Deadline: b.Deadline})
	if err != nil {
		return nil, err
	}
	return api.SubmitBatchJob200JSONResponse(resp), nil
}

// submit resolves the version first, so an unknown model or version is a 400 now
// rather than a failed job later, and the record names the version that will run.
// The idempotency key's fingerprint is of the version the client asked for, so that
// a repeat routed elsewhere by a weighted rule still finds its job, and of the rest of
// the body: priority and deadline (normal by name or by default), callback and
// on_error (fail by name or by default).
func (s *Server) submit(ctx context.Context, idemKey *string, op string, sub job.Submission, u urgency.Job) (api.AsyncSubmitResponse, error) {
	idem, err := idempotencyOf(idemKey, op, sub.Model, sub.Version, sub.Input)
	if err != nil {
		return api.AsyncSubmitResponse{}, err
	}
	if sub.Priority, sub.Deadline, err = u.Parse(); err != nil {
		return api.AsyncSubmitResponse{}, err
	}
	if idem != nil {
		rest := func(inner string) string {
			if sub.EachItem { // a part of its own, so that the default's digest is as it was
				return digest([]byte(sub.CallbackURL), inner, string(sub.Priority.Or()), urgency.DeadlineText(sub.Deadline), "on_error:continue")
			}
			return digest([]byte(sub.CallbackURL), inner, string(sub.Priority.Or()), urgency.DeadlineText(sub.Deadline))
		}
		earlier := idem.Earlier
		idem.Fingerprint = rest(idem.Fingerprint)
		idem.Earlier = func() string { return rest(earlier()) }
		sub.Idempotency = idem
	}
	// Claimed from before its version is resolved until the runner has claimed the
	// job itself: an unload that starts meanwhile waits for it, or refuses it here.
	defer s.reg.Claim(sub.Model)()
	ver, err := s.reg.Resolve(sub.Model, sub.Version)
	if err != nil {
		return api.AsyncSubmitResponse{}, err
	}
	sub.Version = ver
	if info := infoFrom(ctx); info != nil {
		info.route = registry.RouteNote{Model: sub.Model, Version: ver}
	}
	if sub.CallbackURL != "" {
		if err := s.opts.Callbacks.CheckURL(sub.CallbackURL); err != nil {
			return api.AsyncSubmitResponse{}, &problem.Error{Kind: problem.Invalid, Code: problem.CodeCallbackNotAllowed, Detail: err.Error()}
		}
	}
	if info := infoFrom(ctx); info != nil {
		sub.Owner = info.principal.ID // the key's cap on unfinished jobs counts by it
	}
	rec, _, err := s.jobs.SubmitWith(ctx, sub)
	if err != nil {
		return api.AsyncSubmitResponse{}, err
	}
	return api.AsyncSubmitResponse{JobId: jobrecord.ID(rec.ID)}, nil
}

// PollJob returns a job record.
func (s *Server) PollJob(ctx context.Context, req api.PollJobRequestObject) (api.PollJobResponseObject, error) {
	rec, err := s.jobs.Get(ctx, jobID(req.JobId))
	if err != nil {
		return nil, err
	}
	return api.PollJob200JSONResponse(jobrecord.From(rec)), nil
}

// CancelJob cancels a job that has not finished. A key cancels the jobs it submitted;
// another key's job answers 404 as an unknown id does, so no key learns another's
// ids. A key with the admin scope cancels any.
func (s *Server) CancelJob(ctx context.Context, req api.CancelJobRequestObject) (api.CancelJobResponseObject, error) {
	var p auth.Principal
	if info := infoFrom(ctx); info != nil {
		p = info.principal
	}
	var rec job.Record
	var err error
	if p.Has(auth.ScopeAdmin) {
		rec, err = s.jobs.Cancel(ctx, jobID(req.JobId))
	} else {
		rec, err = s.jobs.CancelFor(ctx, p.ID, jobID(req.JobId))
	}
	if err != nil && rec.ID == "" {
		return nil, err
	}
	if err != nil {
		// The record is cancelled, which is what the client asked for; a run that goes on
		// in a worker has its result discarded.
		s.log.WarnContext(ctx, "job cancelled, but the runner could not drop it", "request_id", requestID(ctx), "job_id", req.JobId, "error", err)
	}
	return api.CancelJob200JSONResponse(jobrecord.From(rec)), nil
}

// GetJob returns the same record as PollJob, after waiting up to req.Params.Wait
// seconds for the job to finish (the contract bounds it to 0..30).
func (s *Server) GetJob(ctx context.Context, req api.GetJobRequestObject) (api.GetJobResponseObject, error) {
	var wait time.Duration
	if req.Params.Wait != nil {
		wait = time.Duration(float64(*req.Params.Wait) * float64(time.Second))
	}
	rec, err := s.jobs.Wait(ctx, jobID(req.JobId), wait)
	if err != nil {
		return nil, err
	}
	return api.GetJob200JSONResponse(jobrecord.From(rec)), nil
}

// ListModels lists every known version, loaded or not.
func (s *Server) ListModels(context.Context, api.ListModelsRequestObject) (api.ListModelsResponseObject, error) {
	entries := s.reg.List()
	out := api.ModelList{Models: make([]api.ModelEntry, 0, len(entries))}
	for _, e := range entries {
		out.Models = append(out.Models, api.ModelEntry{Name: e.Name, Version: e.Version})
	}
	return api.ListModels200JSONResponse(out), nil
}

// Health answers as soon as the process listens.
func (s *Server) Health(context.Context, api.HealthRequestObject) (api.HealthResponseObject, error) {
	return api.Health200JSONResponse{Status: api.Ok}, nil
}

// Ready answers 200 once every pipeline has loaded (see readiness), and 503 stopping
// from Drain on.
func (s *Server) Ready(context.Context, api.ReadyRequestObject) (api.ReadyResponseObject, error) {
	body := s.readiness()
	if s.draining.Load() {
		body.Status = api.ReadinessStatusStopping
	}
	retry := retryAfterSeconds
	if body.Status == api.ReadinessStatusReady {
		return api.Ready200JSONResponse(body), nil
	}
	return api.Ready503JSONResponse{Body: body, Headers: api.Ready503ResponseHeaders{RetryAfter: &retry}}, nil
}

// ListLoadedModels lists the pipelines in memory.
func (s *Server) ListLoadedModels(context.Context, api.ListLoadedModelsRequestObject) (api.ListLoadedModelsResponseObject, error) {
	out := api.LoadedModelList{Models: []api.LoadedModel{}, Failed: []api.FailedModel{}}
	for _, e := range s.reg.List() {
		if e.Status == registry.StatusFailed {
			out.Failed = append(out.Failed, s.failedModel(e))
		}
		if e.Status != registry.StatusReady {
			continue
		}
		ms := float64(e.LoadDuration.Microseconds()) / 1000
		out.Models = append(out.Models, api.LoadedModel{Name: e.Name, Version: e.Version, LoadedAt: e.LoadedAt, LoadDurationMs: &ms})
	}
	return api.ListLoadedModels200JSONResponse(out), nil
}

// failedModel describes a version whose load failed, as /ready and
// /debug/models/loaded list it.
func (s *Server) failedModel(e registry.Entry) api.FailedModel {
	return api.FailedModel{Name: e.Name, Version: e.Version, Error: s.redact.LoadError(e.Err), AtStart: e.AtStart}
}

// GetModel describes one version: status, tensors, steps and routing.
func (s *Server) GetModel(ctx context.Context, req api.GetModelRequestObject) (api.GetModelResponseObject, error) {
	m, err := s.reg.Describe(req.Name)
	var entry *registry.Entry
	if err == nil {
		for i := range m.Versions {
			if m.Versions[i].Version == req.Version {
				entry = &m.Versions[i]
			}
		}
		if entry == nil {
			err = fmt.Errorf("%w: model %q has no version %q", registry.ErrVersionNotFound, req.Name, req.Version)
		}
	}
	if err != nil {
		return nil, namedInPath(err)
	}
	out := api.ModelMetadata{
		Name: m.Name, Version: entry.Version, Status: api.ModelMetadataStatus(entry.Status),
		Description: entry.Info.Description,
		Inputs:      tensorSpecs(entry.Info.Inputs), Outputs: tensorSpecs(entry.Info.Outputs),
		Routing:  routingRule(m.Rule),
		Versions: make([]string, 0, len(m.Versions)),
	}
	if entry.Err != nil && entry.Status == registry.StatusFailed {
		msg := s.redact.LoadError(entry.Err)
		out.Error = &msg
	}
	if !entry.LoadedAt.IsZero() {
		out.LoadedAt = &entry.LoadedAt
	}
	if p := entry.Provenance; p.Digests != "" {
		out.Provenance = &api.Provenance{Sha256sums: p.Digests}
		if p.Signer != "" {
			out.Provenance.Signer = &p.Signer
		}
	}
	for _, v := range m.Versions {
		out.Versions = append(out.Versions, v.Version)
	}
	if out.Preprocess, err = stepSpecs(entry.Pre); err == nil {
		out.Postprocess, err = stepSpecs(entry.Post)
	}
	if err != nil {
		return nil, err
	}
	return api.GetModel200JSONResponse(out), nil
}

// ReloadModel hot-reloads one version.
func (s *Server) ReloadModel(ctx context.Context, req api.ReloadModelRequestObject) (api.ReloadModelResponseObject, error) {
	res, err := s.reg.Reload(ctx, req.Name, req.Version)
	if err != nil {
		return nil, namedInPath(err)
	}
	return api.ReloadModel200JSONResponse{
		Name: res.Name, Version: res.Version, LoadedAt: res.LoadedAt,
		LoadDurationMs: float64(res.LoadDuration.Microseconds()) / 1000,
	}, nil
}

// ModelMemory reports measured memory per pipeline and the process totals.
func (s *Server) ModelMemory(context.Context, api.ModelMemoryRequestObject) (api.ModelMemoryResponseObject, error) {
	out := api.MemoryReport{Pipelines: []api.PipelineMemory{}}
	for _, e := range s.reg.List() {
		if e.Status != registry.StatusReady {
			continue
		}
		m := e.Memory
		out.Pipelines = append(out.Pipelines, api.PipelineMemory{
			Name: e.Name, Version: e.Version, Bytes: m.Bytes, ArtifactBytes: m.ArtifactBytes,
			RssDeltaBytes: m.RSSDelta, HeapDeltaBytes: m.HeapDelta, Exclusive: m.Exclusive, MeasuredAt: m.MeasuredAt,
		})
	}
	pm := registry.CurrentProcessMemory()
	out.Process = api.ProcessMemory{
		RssBytes: pm.RSS, GoHeapAllocBytes: pm.HeapAlloc, GoHeapSysBytes: pm.HeapSys,
		GoSysBytes: pm.Sys, Goroutines: pm.Goroutines,
	}
	return api.ModelMemory200JSONResponse(out), nil
}

// checkItems caps a batch at MaxBatchItems.
func (s *Server) checkItems(n int) error {
	if n <= s.opts.MaxBatchItems {
		return nil
	}
	return &problem.Error{Kind: problem.TooLarge, Code: problem.CodePayloadTooLarge,
		Detail: fmt.Sprintf("items has %d elements; at most %d are allowed (MAX_BATCH_ITEMS); split the batch", n, s.opts.MaxBatchItems)}
}

// jobID normalises a job id from a path: ids are stored as uuid.NewString writes
// them (lower case, hyphens), and the same UUID written in upper case or in its
// urn:uuid: form names the same job. Anything else is looked up as sent (and not
// found).
func jobID(id string) string {
	if u, err := uuid.Parse(id); err == nil {
		return u.String()
	}
	return id
}

// deref is *p, or "" when p is nil.
func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func tensorSpecs(ts []pipeline.Tensor) []api.TensorSpec {
	out := make([]api.TensorSpec, len(ts))
	for i, t := range ts {
		out[i] = api.TensorSpec{Name: t.Name, Dtype: t.DType, Shape: t.Shape}
		if out[i].Shape == nil {
			out[i].Shape = []int64{}
		}
	}
	return out
}

// stepSpecs renders each step's parameter struct as the JSON object the contract
// shows, through its json tags.
func stepSpecs(steps []pipeline.StepInfo) ([]api.StepSpec, error) {
	out := make([]api.StepSpec, len(steps))
	for i, st := range steps {
		out[i] = api.StepSpec{Name: st.Name, Params: map[string]any{}}
		if st.Params == nil {
			continue
		}
		b, err := json.Marshal(st.Params)
		if err != nil {
			return nil, fmt.Errorf("describing step %q: %w", st.Name, err)
		}
		if err := json.Unmarshal(b, &out[i].Params); err != nil {
			return nil, fmt.Errorf("describing step %q: %w", st.Name, err)
		}
	}
	return out, nil
}

func routingRule(r registry.Rule) api.RoutingRule {
	out := api.RoutingRule{Strategy: api.RoutingRuleStrategy(r.Strategy)}
	if out.Strategy == "" {
		out.Strategy = api.RoutingRuleStrategy(registry.Latest)
	}
	if r.Version != "" {
		out.Version = &r.Version
	}
	if len(r.Weights) > 0 {
		w := r.Weights
		out.Weights = &w
	}
	return out
}

// Admission is the server's admission (keys, scopes, the failed-key throttle,
// concurrency and rate limits), for the calls that come by another listener (gRPC) to
// share them.
func (s *Server) Admission() *admission.Admission { return s.admission }

// Wording words the domain's errors as the HTTP API answers them, for gRPC to answer
// them the same.
func (s *Server) Wording() *problem.Wording { return s.wording }

// OIP is the service of the Open Inference Protocol's calls about the server and its
// models and Triton's extensions that /v2 answers, for gRPC to answer them the same.
func (s *Server) OIP() *oip.Service { return s.oip }
