package client

import gen "github.com/inferd/inferd/gen/client"

// The contract's answers, as generated from openapi.yaml. Any-value fields (Result,
// Results) are json.RawMessage, byte for byte as the server sent them; job ids are
// strings.
type (
	Prediction      = gen.Prediction
	BatchPrediction = gen.BatchPrediction
	JobRecord       = gen.JobRecord
	JobStatus       = gen.JobStatus
	ModelList       = gen.ModelList
	ModelEntry      = gen.ModelEntry
	ModelMetadata   = gen.ModelMetadata
	TensorSpec      = gen.TensorSpec
	StepSpec        = gen.StepSpec
	RoutingRule     = gen.RoutingRule
	LoadedModelList = gen.LoadedModelList
	LoadedModel     = gen.LoadedModel
	FailedModel     = gen.FailedModel
	ReloadResult    = gen.ReloadResult
	MemoryReport    = gen.MemoryReport
	PipelineMemory  = gen.PipelineMemory
	ProcessMemory   = gen.ProcessMemory
	Health          = gen.Health
	Readiness       = gen.Readiness
	Problem         = gen.Problem
)

// The statuses of a job: created -> pending -> running -> succeeded | failed, or
// cancelled before it finished.
const (
	JobCreated   = gen.JobStatusCreated
	JobPending   = gen.JobStatusPending
	JobRunning   = gen.JobStatusRunning
	JobSucceeded = gen.JobStatusSucceeded
	JobFailed    = gen.JobStatusFailed
	JobCancelled = gen.JobStatusCancelled
)

// Finished reports whether a job in status s will never change again.
func Finished(s JobStatus) bool {
	return s == JobSucceeded || s == JobFailed || s == JobCancelled
}
