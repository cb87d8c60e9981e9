package queue

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/hibiken/asynq"

	"github.com/inferd/inferd/internal/job"
	"github.com/inferd/inferd/internal/job/redisstore"
	"github.com/inferd/inferd/internal/telemetry"
)

// TaskType is the asynq type name of a job's task.
const TaskType = "inferd:job"

// DefaultQueue is the asynq queue name when TaskOptions.Queue is empty. It is not
// asynq's "default", so inferd can share a Redis with other asynq users.
const DefaultQueue = "inferd"

// TaskOptions say how jobs become asynq tasks. The Runner of every API server and every
// Worker on one queue must agree on them. The zero value of each field is a documented
// default.
type TaskOptions struct {
	// Queue is the asynq queue. "" means DefaultQueue.
	Queue string
	// MaxRetry is how many times asynq redelivers a task whose handler failed (the job
	// outcome could not be recorded, or the worker lost its lease) before it gives up
	// and the job is failed. 0 means 25; retries wait 1 s, doubling up to 30 s, so 25
	// rides out about ten minutes of Redis trouble.
	MaxRetry int
	// Timeout is how long one delivery may run. A job still running then ends failed.
	// 0 means 30 minutes.
	Timeout time.Duration
	// MaxRecoveries is how many times the recoverer re-enqueues a job whose worker died
	// under it, before it fails the job rather than feed it to yet another worker
	// (a job that crashes its worker would otherwise kill them all in turn). 0 means 3.
	MaxRecoveries int
	// Shards is how many asynq queues jobs are spread over, each with its jobs'
	// records in a Redis Cluster slot of its own (see redisstore.Shards). 0 means 1:
	// the queue Queue alone. With more, the queues are Queue-0, Queue-1, ...
	Shards int
	// Cluster says Redis is a Redis Cluster: every key carries its shard's hash tag,
	// even with one shard, and announcements go on sharded pub/sub.
	Cluster bool
}

// Sharding is where the options put each job's keys; the Store of every server and
// worker must be given the same (redisstore.Options.Shards).
func (o TaskOptions) Sharding() redisstore.Shards {
	o = o.withDefaults()
	return redisstore.Shards{Queue: o.Queue, N: o.Shards, Tagged: o.Cluster}
}

// queueOf is the asynq queue of the job id's shard, for a job of normal priority.
func (o TaskOptions) queueOf(jobID string) string {
	sh := o.Sharding()
	return sh.Name(sh.Of(jobID))
}

// queueAt is the asynq queue of the job id's shard for priority p: the shard's queue
// for normal, and for high and low a queue beside it in its Redis Cluster slot
// (redisstore.Shards.Beside), so that the submission script writes record and task in
// one slot.
func (o TaskOptions) queueAt(jobID string, p job.Priority) string {
	sh := o.Sharding()
	return o.shardQueue(sh.Of(jobID), p)
}

// shardQueue is shard k's queue for priority p.
func (o TaskOptions) shardQueue(k int, p job.Priority) string {
	sh := o.Sharding()
	if p.Or() == job.PriorityNormal {
		return sh.Name(k)
	}
	return sh.Beside(k, string(p))
}

// Queues are every asynq queue of the options: the shards' queues of normal priority
// first, in shard order, then those of high and of low.
func (o TaskOptions) Queues() []string {
	sh := o.Sharding()
	var out []string
	for _, p := range []job.Priority{job.PriorityNormal, job.PriorityHigh, job.PriorityLow} {
		for k := range sh.Count() {
			out = append(out, o.shardQueue(k, p))
		}
	}
	return out
}

// weights are the asynq Config.Queues of a worker: every queue with its priority's
// weight, every shard alike.
func (o TaskOptions) weights() map[string]int {
	sh := o.Sharding()
	out := map[string]int{}
	for _, p := range job.Priorities {
		for k := range sh.Count() {
			out[o.shardQueue(k, p)] = p.Weight()
		}
	}
	return out
}

func (o TaskOptions) withDefaults() TaskOptions {
	if o.Queue == "" {
		o.Queue = DefaultQueue
	}
	if o.MaxRetry <= 0 {
		o.MaxRetry = 25
	}
	if o.Timeout <= 0 {
		o.Timeout = 30 * time.Minute
	}
	if o.MaxRecoveries <= 0 {
		o.MaxRecoveries = 3
	}
	return o
}

// payload is what a task carries: which job, which recovery of it, and the trace
// context of its submission. Tasks enqueued before tracing existed have no trace and
// decode as before.
type payload struct {
	JobID string `json:"job_id"`
	// Recovery is 0 for the task the API enqueued and n for the nth re-enqueue by a
	// recoverer after a worker died.
	Recovery int `json:"recovery,omitempty"`
	// Record is the job's record as a Submitter wrote it, when small: the worker marks
	// the job running from it, without a read, unless the record has changed since.
	Record json.RawMessage `json:"record,omitempty"`
	// Trace is the W3C trace context (traceparent, tracestate, baggage) of the
	// submission, so the worker's spans join the submitter's trace; absent when the
	// submission was not traced.
	Trace telemetry.Carrier `json:"trace,omitempty"`
}

// errTaskExists is a Submitter's refusal of a job whose task id is taken.
var errTaskExists = errors.New("its task exists")

// taskID names the task of a job's nth recovery. The first task's id is the job id,
// so operators find a job in asynqmon by its id; recoveries get their own ids because
// asynq keeps the orphaned task's id until its own recoverer retires it.
func taskID(jobID string, recovery int) string {
	if recovery == 0 {
		return jobID
	}
	return fmt.Sprintf("%s:r%d", jobID, recovery)
}

// newTask returns the task of a job's nth recovery, with its enqueue options.
func (o TaskOptions) newTask(jobID string, recovery int, trace telemetry.Carrier) (*asynq.Task, []asynq.Option) {
	return o.newTaskAt(jobID, recovery, trace, job.PriorityNormal)
}

// newTaskAt is newTask for a job of priority p.
func (o TaskOptions) newTaskAt(jobID string, recovery int, trace telemetry.Carrier, p job.Priority) (*asynq.Task, []asynq.Option) {
	b, _ := json.Marshal(payload{JobID: jobID, Recovery: recovery, Trace: trace}) // cannot fail
	return asynq.NewTask(TaskType, b), []asynq.Option{
		asynq.TaskID(taskID(jobID, recovery)),
		asynq.Queue(o.queueAt(jobID, p)),
		asynq.MaxRetry(o.MaxRetry),
		asynq.Timeout(o.Timeout),
	}
}

func decodePayload(b []byte) (payload, error) {
	var p payload
	if err := json.Unmarshal(b, &p); err != nil {
		return payload{}, fmt.Errorf("decoding task payload: %w", err)
	}
	if p.JobID == "" {
		return payload{}, errors.New("task payload has no job_id")
	}
	return p, nil
}
