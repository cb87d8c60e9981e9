package cli

import (
	"context"
	"encoding/json"
)

// api is what the commands need of the server. The SDK provides it (see sdk.go); the
// commands never see HTTP.
type api interface {
	Predict(ctx context.Context, model, version string, data json.RawMessage) (*prediction, error)
	PredictBatch(ctx context.Context, model, version string, items []json.RawMessage) (*batchPrediction, error)
	Submit(ctx context.Context, model, version string, data json.RawMessage) (string, error)
	SubmitBatch(ctx context.Context, model, version string, items []json.RawMessage) (string, error)
	Job(ctx context.Context, id string) (*job, error)
	CancelJob(ctx context.Context, id string) (*job, error)
	Models(ctx context.Context) (*modelList, error)
	Model(ctx context.Context, name, version string) (any, error)
	Reload(ctx context.Context, name, version string) (any, error)
	Memory(ctx context.Context) (any, error)
}

// prediction is a single prediction, printed in this key order.
type prediction struct {
	Model   string          `json:"model"`
	Version string          `json:"version"`
	Result  json.RawMessage `json:"result"`
}

// batchPrediction is a batch prediction; inferctl prints its results one per line.
type batchPrediction struct {
	Model   string            `json:"model"`
	Version string            `json:"version"`
	Results []json.RawMessage `json:"results"`
}

// job is a job record, printed in the contract's key order.
type job struct {
	JobID        string          `json:"job_id"`
	Status       string          `json:"status"`
	Model        string          `json:"model"`
	Version      string          `json:"version"`
	Batch        bool            `json:"batch"`
	CreatedAt    string          `json:"created_at"`
	StartedAt    string          `json:"started_at,omitempty"`
	FinishedAt   string          `json:"finished_at,omitempty"`
	Result       json.RawMessage `json:"result"`
	ErrorMessage *string         `json:"error_message"`
}

// finished reports whether the job has ended; statuses never move back from these.
func (j *job) finished() bool {
	return j.Status == "succeeded" || j.Status == "failed" || j.Status == "cancelled"
}

// modelList is the registry's model versions.
type modelList struct {
	Models []modelEntry `json:"models"`
}

type modelEntry struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// problemInfo is what inferctl shows of a non-2xx answer.
type problemInfo struct {
	Status     int
	Code       string
	Title      string
	Detail     string
	RequestID  string
	RetryAfter int
}
