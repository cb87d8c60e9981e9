package job

import (
	"encoding/json"
	"time"
)

// Record is a job as stored and served.
type Record struct {
	ID      string `json:"id"`
	Status  Status `json:"status"`
	Model   string `json:"model"`
	Version string `json:"version"`
	// Batch jobs carry a JSON array in Input and produce one in Result.
	Batch bool `json:"batch"`
	// EachItem makes a batch job's items fail alone (on_error: continue): an item whose
	// input is refused gets null in Result and an entry in ItemErrors, and the job
	// succeeds with the others' results.
	EachItem bool `json:"each_item,omitempty"`
	// Owner names the API key that submitted the job (its auth.Principal ID, never the
	// key): the stores count a key's unfinished jobs by it. "" is a job of no key,
	// which no cap counts.
	Owner string `json:"owner,omitempty"`
	// Input is the request's data, or for a batch its items array, as raw JSON.
	Input  json.RawMessage `json:"input"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  string          `json:"error,omitempty"`
	// ItemErrors are the items of an EachItem job refused alone, in their order.
	ItemErrors []ItemError `json:"item_errors,omitempty"`
	// Code is a stable code for why the run failed (the API's error_code), when the
	// runner gave one (Executor.Code); "" for a job that did not fail, or failed
	// without running.
	Code string `json:"code,omitempty"`
	// Priority is how soon the job should start; "" is PriorityNormal.
	Priority Priority `json:"priority,omitempty"`
	// Deadline, when set, is when the job must have started: a runner that reaches it
	// later fails it unrun. A pointer, as the zero time is a deadline too (RFC 3339's
	// 0001-01-01T00:00:00Z, long past); never written through, so copies share nothing
	// that changes.
	Deadline   *time.Time `json:"deadline,omitempty"`
	CreatedAt  time.Time  `json:"created_at"`
	StartedAt  time.Time  `json:"started_at,omitzero"`
	FinishedAt time.Time  `json:"finished_at,omitzero"`
	// WorkerLostAt, in queue mode, is when the worker that last ran the job was last
	// heard from before it stopped (see Executor.WorkerLost); RetryAt when the job is,
	// or was, queued again after it, zero when it is not to be.
	WorkerLostAt time.Time `json:"worker_lost_at,omitzero"`
	RetryAt      time.Time `json:"retry_at,omitzero"`
	// Callback, when its URL is set, is posted the final record once the job
	// finishes. A value, not a pointer: copies of a record share nothing.
	Callback Callback `json:"callback,omitzero"`
}

// ItemError is an item of a batch job that failed alone: its input was refused.
type ItemError struct {
	// Index is the item's position in the job's items.
	Index int `json:"index"`
	// Detail says what is wrong with it, naming it items[Index].
	Detail string `json:"detail"`
}

// HoldsSlot reports whether r takes one of its owner's slots when a store caps each
// owner at max unfinished records (0: no cap).
func (r *Record) HoldsSlot(max int) bool {
	return r.Owner != "" && max > 0 && !r.Status.Final()
}

// Items returns the inputs of the job as a batch.
func (r *Record) Items() ([]json.RawMessage, error) {
	if !r.Batch {
		return []json.RawMessage{r.Input}, nil
	}
	var items []json.RawMessage
	err := json.Unmarshal(r.Input, &items)
	return items, err
}

// move sets the status when the transition is allowed, stamping the times it implies.
func (r *Record) move(to Status, now time.Time) bool {
	if !r.Status.CanMoveTo(to) {
		return false
	}
	r.Status = to
	switch {
	case to == StatusRunning:
		r.StartedAt = now
	case to.Final():
		// A finished job never runs again (a redelivery finds it final), so its input
		// is dead weight for the rest of JOB_TTL: one 1 MB async request kept 12 MB
		// of Redis.
		r.FinishedAt, r.Input = now, nil
	}
	return true
}

// fail moves the record to failed with msg, or returns errNoChange when it has finished.
func (r *Record) fail(msg string, now time.Time) error {
	if !r.move(StatusFailed, now) {
		return errNoChange
	}
	r.Error = msg
	return nil
}
