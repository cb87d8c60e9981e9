package client

import (
	"context"
	"strings"
	"time"

	gen "github.com/inferd/inferd/gen/client"
)

// SubmitOptions are what a job submission may say besides its input. The zero value
// says nothing: a Submit.
type SubmitOptions struct {
	// IdempotencyKey, when set, makes the submission safe to send again: within the
	// server's IDEMPOTENCY_TTL a repeat with the same key and request answers the job
	// the first one created (a key reused with another request is CodeIdempotencyKeyReused,
	// one whose first submission is still being accepted
	// CodeIdempotencyKeyInProgress, with Error.RetryAfter). Sent as a structured-field
	// string; at most 255 printable ASCII characters.
	IdempotencyKey string
	// Priority is "low", "normal" or "high"; "" is normal.
	Priority string
	// Deadline, when not zero, is when the job must have started: a job no worker has
	// started by then ends failed, unrun.
	Deadline time.Time
}

// SubmitWith is Submit with options.
func (c *Client) SubmitWith(ctx context.Context, r PredictRequest, o SubmitOptions) (string, error) {
	data, err := encode("data", r.Data)
	if err != nil {
		return "", err
	}
	body, err := request(gen.AsyncPredictRequest{Model: r.Model, Version: r.Version, Data: data, CallbackUrl: optional(r.CallbackURL), Priority: o.priority(), Deadline: o.deadline()})
	if err != nil {
		return "", err
	}
	resp, err := c.gen.SubmitJobWithBody(ctx, &gen.SubmitJobParams{IdempotencyKey: o.key()}, contentJSON, body)
	return submitted(resp, err)
}

// SubmitBatchWith is SubmitBatch with options.
func (c *Client) SubmitBatchWith(ctx context.Context, r BatchRequest, o SubmitOptions) (string, error) {
	body, err := r.asyncBodyWith(o)
	if err != nil {
		return "", err
	}
	resp, err := c.gen.SubmitBatchJobWithBody(ctx, &gen.SubmitBatchJobParams{IdempotencyKey: o.key()}, contentJSON, body)
	return submitted(resp, err)
}

// key is the Idempotency-Key header's value: the key as a structured-field string,
// whose only escapes are \" and \\.
func (o SubmitOptions) key() *string {
	if o.IdempotencyKey == "" {
		return nil
	}
	v := `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(o.IdempotencyKey) + `"`
	return &v
}

func (o SubmitOptions) priority() *gen.JobPriority {
	if o.Priority == "" {
		return nil
	}
	p := gen.JobPriority(o.Priority)
	return &p
}

func (o SubmitOptions) deadline() *time.Time {
	if o.Deadline.IsZero() {
		return nil
	}
	d := o.Deadline
	return &d
}
