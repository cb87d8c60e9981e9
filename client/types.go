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
	// Provenance is what the server verified of a version's files: its SHA256SUMS
	// digest and, with a signing key configured, the signer's fingerprint.
	Provenance      = gen.Provenance
	LoadedModelList = gen.LoadedModelList
	LoadedModel     = gen.LoadedModel
	FailedModel     = gen.FailedModel
	ReloadResult    = gen.ReloadResult
	MemoryReport    = gen.MemoryReport
	// Explanation is a prediction with what each step of a model graph did for it.
	Explanation = gen.Explanation
	// ExplainedStep is one graph step: its outcome, duration and tensors.
	ExplainedStep = gen.ExplainedStep
	// ExplainedStepOutcome is what a step did: answered, skipped or fallback.
	ExplainedStepOutcome = gen.ExplainedStepOutcome
	// ExplainedTensor is a tensor between graph steps, batch dimension first.
	ExplainedTensor = gen.ExplainedTensor
	PipelineMemory  = gen.PipelineMemory
	ProcessMemory   = gen.ProcessMemory
	Health          = gen.Health
	Readiness       = gen.Readiness
	Problem         = gen.Problem
	// BatchItemError is an item of a batch sent with OnErrorContinue that failed
	// alone: its Index in Items, the Status and Code a refusal of the whole batch
	// would have had, and the Detail, naming it items[Index].
	BatchItemError = gen.BatchItemError
	// OnError is what an item whose input the model refuses does to its batch
	// (BatchRequest.OnError).
	OnError = gen.BatchOnError
)

// The values of BatchRequest.OnError.
const (
	// OnErrorFail (the default, as ""): the item fails the whole batch, a
	// CodeInvalidInput refusal naming it items[k], or a failed job.
	OnErrorFail = gen.Fail
	// OnErrorContinue: the item fails alone. The batch answers the others' results,
	// null in the item's place, and lists it in ItemErrors (BatchPrediction's, or the
	// finished job's JobRecord's), even when every item failed. What is not one item's
	// fault (an unknown model, a timeout, a model that fails to run) still fails the
	// whole batch.
	OnErrorContinue = gen.Continue
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
