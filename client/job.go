package client

import (
	"context"
	"net/http"
	"time"

	gen "github.com/inferd/inferd/gen/client"
)

// Submit records and queues one asynchronous prediction (POST /predict/async,
// operation submitJob) and returns the job's id at once; see WaitJob.
func (c *Client) Submit(ctx context.Context, r PredictRequest) (string, error) {
	body, err := r.asyncBody()
	if err != nil {
		return "", err
	}
	resp, err := c.gen.SubmitJobWithBody(ctx, nil, contentJSON, body)
	return submitted(resp, err)
}

// SubmitBatch records and queues an asynchronous batch (POST /predict/async/batch,
// operation submitBatchJob). The finished job's Result is an array in the order of
// Items.
func (c *Client) SubmitBatch(ctx context.Context, r BatchRequest) (string, error) {
	body, err := r.asyncBody()
	if err != nil {
		return "", err
	}
	resp, err := c.gen.SubmitBatchJobWithBody(ctx, nil, contentJSON, body)
	return submitted(resp, err)
}

func submitted(resp *http.Response, err error) (string, error) {
	var out gen.AsyncSubmitResponse
	if err := read(resp, err, &out); err != nil {
		return "", err
	}
	return out.JobId, nil
}

// Job returns a job's record (GET /jobs/{job_id}, operation getJob). Any valid key
// may read it.
func (c *Client) Job(ctx context.Context, id string) (*JobRecord, error) {
	if id == "" {
		return nil, errEmptyID
	}
	return c.jobWaiting(ctx, id, 0)
}

// JobWhenFinished is Job as a long poll: the server answers when the job has finished
// or after wait (at most 30 s), whichever comes first, with the record as it is then.
func (c *Client) JobWhenFinished(ctx context.Context, id string, wait time.Duration) (*JobRecord, error) {
	if id == "" {
		return nil, errEmptyID
	}
	return c.jobWaiting(ctx, id, wait)
}

// jobWaiting reads a job's record through getJob, waiting up to wait (when above 0)
// for it to finish.
func (c *Client) jobWaiting(ctx context.Context, id string, wait time.Duration) (*JobRecord, error) {
	var params *gen.GetJobParams
	if wait > 0 {
		s := float32(min(wait, maxPoll).Seconds())
		params = &gen.GetJobParams{Wait: &s}
	}
	resp, err := c.gen.GetJob(ctx, id, params)
	return record(resp, err)
}

// PollJob returns a job's record through the polling route, GET
// /predict/async/{job_id} (operation pollJob); the record is the same as Job's (see
// docs/design.md#two-routes-to-a-jobs-record).
func (c *Client) PollJob(ctx context.Context, id string) (*JobRecord, error) {
	if id == "" {
		return nil, errEmptyID
	}
	resp, err := c.gen.PollJob(ctx, id)
	return record(resp, err)
}

// CancelJob cancels a job that has not finished (DELETE /predict/async/{job_id},
// operation cancelJob) and returns its cancelled record. A finished job is an *Error
// with CodeJobFinished.
func (c *Client) CancelJob(ctx context.Context, id string) (*JobRecord, error) {
	if id == "" {
		return nil, errEmptyID
	}
	resp, err := c.gen.CancelJob(ctx, id)
	return record(resp, err)
}

func record(resp *http.Response, err error) (*JobRecord, error) {
	var out JobRecord
	if err := read(resp, err, &out); err != nil {
		return nil, err
	}
	return &out, nil
}
