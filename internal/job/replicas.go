package job

import "context"

// Replicas makes a submission wait until what the Store and the Runner wrote for it is
// held by more than one machine, so that losing the primary loses no accepted job.
type Replicas interface {
	// Wait returns once every write for the job id that finished before the call has
	// reached the required replicas, or an error wrapping ErrQueueUnavailable when they
	// did not acknowledge in time. The id tells which primary holds the job's writes
	// when jobs are spread over several (Redis Cluster).
	Wait(ctx context.Context, id string) error
}
