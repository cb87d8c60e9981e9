package jobrecord

import (
	"encoding/json"
	"strings"

	"github.com/google/uuid"

	"github.com/inferd/inferd/gen/api"
	"github.com/inferd/inferd/internal/job"
	"github.com/inferd/inferd/internal/pipeline"
	"github.com/inferd/inferd/internal/problem"
)

// ID reads a job id as the API types it; ids are made by uuid.NewString, so a
// failure means a corrupt record, shown as the nil UUID rather than failing the
// whole answer.
func ID(id string) uuid.UUID {
	u, _ := uuid.Parse(id)
	return u
}

// From is rec as the API serves it.
func From(rec job.Record) api.JobRecord {
	out := api.JobRecord{
		JobId:     ID(rec.ID),
		Status:    api.JobStatus(rec.Status),
		Model:     rec.Model,
		Version:   rec.Version,
		Batch:     &rec.Batch,
		CreatedAt: rec.CreatedAt,
		Result:    json.RawMessage("null"),
	}
	if rec.Status == job.StatusSucceeded && len(rec.Result) > 0 {
		out.Result = rec.Result
		// Only an input error fails an item alone (job.ItemError), answered as any is.
		kind, code := problem.Classify(pipeline.ErrInvalidInput)
		for _, f := range rec.ItemErrors {
			out.ItemErrors = append(out.ItemErrors, api.BatchItemError{Index: f.Index, Status: kind.HTTPStatus(), Code: code, Detail: f.Detail})
		}
	}
	if rec.Status == job.StatusFailed {
		msg := rec.Error
		if strings.TrimSpace(msg) == "" {
			msg = "the job failed without a message"
		}
		out.ErrorMessage = &msg
		if rec.Code != "" {
			code := rec.Code
			out.ErrorCode = &code
		}
	}
	if !rec.StartedAt.IsZero() {
		out.StartedAt = &rec.StartedAt
	}
	if !rec.FinishedAt.IsZero() {
		out.FinishedAt = &rec.FinishedAt
	}
	if !rec.WorkerLostAt.IsZero() {
		out.WorkerLostAt = &rec.WorkerLostAt
		if !rec.RetryAt.IsZero() {
			out.RetryAt = &rec.RetryAt
		}
	}
	p := api.JobPriority(rec.Priority.Or())
	out.Priority = &p
	out.Deadline = rec.Deadline
	if cb := rec.Callback; cb.URL != "" {
		out.Callback = &api.JobCallback{Url: cb.URL, State: api.JobCallbackState(cb.State), Attempts: cb.Attempts}
		if cb.LastError != "" {
			out.Callback.LastError = &cb.LastError
		}
		if !cb.DeliveredAt.IsZero() {
			out.Callback.DeliveredAt = &cb.DeliveredAt
		}
	}
	return out
}

// JSON is From(rec) encoded: the body of its completion callback.
func JSON(rec job.Record) ([]byte, error) { return job.EncodeJSON(From(rec)) }
