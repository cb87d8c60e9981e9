package telemetry

import "go.opentelemetry.io/otel/attribute"

// The attributes of inferd's spans. Model, version and batch size are on every span of
// a prediction below the server span, so a trace can be searched by any of them.
const (
	// Model is the model's name.
	Model = attribute.Key("inferd.model")
	// Version is the version that served the request (the routing decision).
	Version = attribute.Key("inferd.model.version")
	// RequestedVersion is the version the request named; "" when it let the model's
	// routing rule choose.
	RequestedVersion = attribute.Key("inferd.model.version_requested")
	// BatchSize is the items of the work a span covers: a request's items on its
	// stage spans, the items of the backend call (which dynamic batching may have
	// coalesced from several requests) on a runtime span.
	BatchSize = attribute.Key("inferd.batch.size")
	// BatchRequests is how many requests shared a backend call.
	BatchRequests = attribute.Key("inferd.batch.requests")
	// GraphStep is the step of a model graph a span covers the member call of.
	GraphStep = attribute.Key("inferd.graph.step")
	// Steps names the steps of a pipeline stage, in order.
	Steps = attribute.Key("inferd.steps")
	// Operation is the contract's operationId of an HTTP request.
	Operation = attribute.Key("inferd.operation")
	// ProblemCode is the code of the problem+json an HTTP request was answered with.
	ProblemCode = attribute.Key("inferd.problem.code")
	// JobID is a job's id.
	JobID = attribute.Key("inferd.job.id")
	// JobBatch is whether a job is a batch job.
	JobBatch = attribute.Key("inferd.job.batch")
)

// Span names that are not HTTP routes.
const (
	SpanValidate = "validate"
	SpanRoute    = "route"
	SpanRuntime  = "runtime"
	// SpanGraphStep is a model graph's call of one member: its route, stages and
	// runtime spans are its children.
	SpanGraphStep = "graph step"
	SpanJobSend   = "job send"
	SpanJobRun    = "job run"
)
