package job

import (
	"fmt"
	"math/rand/v2"
	"time"
)

// Priority is how soon a job should start among those waiting. Runners serve the
// priorities in weighted random order (Weight), as asynq serves weighted queues, so
// that high jobs usually go first and low ones never starve.
type Priority string

// The priorities; a record's "" is PriorityNormal (records written before priorities
// existed, and submissions that name none).
const (
	PriorityHigh   Priority = "high"
	PriorityNormal Priority = "normal"
	PriorityLow    Priority = "low"
)

// Priorities are every priority, the most urgent first.
var Priorities = []Priority{PriorityHigh, PriorityNormal, PriorityLow}

// Weight is the priority's share of the runners' picks: 6, 3 and 1, asynq's own
// example of weighted queues. A worker with high and low jobs waiting starts a high one
// six times in seven.
func (p Priority) Weight() int {
	switch p.Or() {
	case PriorityHigh:
		return 6
	case PriorityLow:
		return 1
	}
	return 3
}

// Or is p, or PriorityNormal when p is "".
func (p Priority) Or() Priority {
	if p == "" {
		return PriorityNormal
	}
	return p
}

// Valid reports whether p is "" or one of Priorities.
func (p Priority) Valid() bool {
	switch p {
	case "", PriorityHigh, PriorityNormal, PriorityLow:
		return true
	}
	return false
}

// PickOrder is the order a runner asks its priority queues in for one job: a weighted
// random draw without replacement, as asynq orders weighted queues (each name listed
// weight times, shuffled, the first of each kept).
func PickOrder() [3]Priority {
	var out [3]Priority
	left := Priorities
	var rest [3]Priority
	for i := range out {
		total := 0
		for _, p := range left {
			total += p.Weight()
		}
		n := rand.IntN(total)
		k := 0
		for j, p := range left {
			if n < p.Weight() {
				k = j
				break
			}
			n -= p.Weight()
		}
		out[i] = left[k]
		m := copy(rest[:], left[:k])
		m += copy(rest[m:], left[k+1:])
		left = append([]Priority(nil), rest[:m]...)
	}
	return out
}

// expired reports whether r has a deadline that passed at now before it started: such
// a job is failed, never run.
func (r *Record) expired(now time.Time) bool {
	return r.Deadline != nil && !now.Before(*r.Deadline) && (r.Status == StatusCreated || r.Status == StatusPending)
}

// deadlineMessage is the error_message of a job failed for its deadline.
func (r *Record) deadlineMessage() string {
	return fmt.Sprintf("the job's deadline %s passed before a worker started it; it was not run", r.Deadline.UTC().Format(time.RFC3339Nano))
}
