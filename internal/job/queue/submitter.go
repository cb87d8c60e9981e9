package queue

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/inferd/inferd/internal/job"
	"github.com/inferd/inferd/internal/job/redisstore"
	"github.com/inferd/inferd/internal/telemetry"
)

// heldRecordMax is the largest encoded record a task carries along with the job id, so
// that the worker taking it marks the job running without reading the record first. A
// larger one is only read: carrying it would hold its input in Redis twice while the
// job waits (and for as long as asynq keeps the task, should it ever be archived), for
// the sake of one round trip. An echo job's record is about 200 bytes, a digits image's
// about 400.
const heldRecordMax = 4 << 10

// Submitter is the job.Submitter of an API server in queue mode: it records and queues
// a job in one script: the record,
// already pending, in the store's key; the task, as asynq's client would have queued
// it; the queue's listing; and the announcement to idle workers. One round trip where
// Store.Create, Runner.Enqueue, the announcement and the move to pending took four, and
// a record exists exactly when its task does.
//
// It writes asynq v0.26.0's task layout itself (see taskMessage): TestSubmitterAsAsynq
// and TestTaskMessageAsAsynq fail if that stops matching asynq's.
type Submitter struct {
	*Runner
	store *redisstore.Store
}

var _ job.Submitter = (*Submitter)(nil)

// NewSubmitter returns a Submitter that queues through r and records in store, which
// must be on r's Redis.
func NewSubmitter(r *Runner, store *redisstore.Store) *Submitter {
	return &Submitter{Runner: r, store: store}
}

// Submit writes rec, pending, and queues its task, or neither. With once, unless rec's
// owner used its key within the store's IdempotencyTTL (then it writes nothing and
// returns that use), the key is checked and written in the same script as the record
// and the task: accepted, unless the Service holds the answer (once.Held). The record
// is written pending: no client can read it before Submit returns its id, so "created"
// would only ever be seen by the Submitter.
func (s *Submitter) Submit(ctx context.Context, rec job.Record, once *job.Once) (job.Record, *job.Use, error) {
	rec.Status = job.StatusPending
	if once == nil {
		if _, err := s.createAndEnqueue(ctx, rec, nil, time.Time{}); err != nil {
			return job.Record{}, nil, answer("queueing job", err)
		}
		return rec, nil, nil
	}
	var until time.Time // accepted once written
	if once.Held {
		until = once.Until
	}
	use, err := s.createAndEnqueue(ctx, rec, &once.Idempotency, until)
	if err != nil {
		return job.Record{}, nil, answer("recording job", err)
	}
	if use != nil {
		return job.Record{}, use, nil
	}
	return rec, nil, nil
}

// answer is what a submission that failed with err answers: a refusal as the store
// worded it, else err saying what failed.
func answer(what string, err error) error {
	if job.Refused(err) {
		return err
	}
	return fmt.Errorf("%s: %w", what, err)
}

// Settle is the store's.
func (s *Submitter) Settle(ctx context.Context, owner string, idem job.Idempotency, id string, ok bool) error {
	return s.store.Settle(ctx, owner, idem, id, ok)
}

// SameShard is the store's: the job id is in the shard, so in the asynq queue, of
// owner's idempotency key.
func (s *Submitter) SameShard(id, owner string, idem job.Idempotency) bool {
	return s.store.SameShard(id, owner, idem)
}

func (s *Submitter) createAndEnqueue(ctx context.Context, rec job.Record, idem *job.Idempotency, pendingUntil time.Time) (*job.Use, error) {
	b, err := job.EncodeJSON(rec)
	if err != nil {
		return nil, fmt.Errorf("encoding job %s: %w", rec.ID, err)
	}
	pb, err := submittedPayload(rec.ID, b, telemetry.Inject(ctx))
	if err != nil {
		return nil, fmt.Errorf("encoding job %s: %w", rec.ID, err)
	}
	if err := s.store.Affordable(rec, b); err != nil {
		return nil, err
	}
	q := s.opts.queueAt(rec.ID, rec.Priority)
	keys, args := s.store.CreateArgs(rec, b)
	keys = append(keys, taskKey(q, rec.ID), pendingKey(q))
	if idem != nil {
		keys = append(keys, s.store.OnceKey(rec.Owner, *idem))
	}
	publish := "PUBLISH"
	if s.opts.Cluster {
		// The queues' listing is in a slot of its own; Register keeps it.
		publish = "SPUBLISH"
	} else {
		keys = append(keys, allQueuesKey)
	}
	args = append(args, s.opts.taskMessageOn(rec.ID, q, pb), strconv.FormatInt(time.Now().UnixNano(), 10),
		q, wakeChannel(q, s.opts.Cluster), publish)
	script := submitScript
	if idem != nil {
		script = submitOnceScript
		args = append(args, s.store.OnceArgs(rec, *idem, pendingUntil)...)
	}
	res, err := script.Run(ctx, s.rc, keys, args...).Result()
	switch {
	case err != nil:
		return nil, fmt.Errorf("%w: recording and queueing job %s: %w", job.ErrQueueUnavailable, rec.ID, err)
	case res == int64(-2):
		return nil, fmt.Errorf("job %s: %w", rec.ID, errTaskExists)
	}
	if u, err := redisstore.Prior(res); u != nil || err != nil {
		return u, err
	}
	return nil, s.store.Created(rec, b, res)
}

// submittedPayload is the payload of the task a Submitter queues for a job whose
// record encodes as record, submitted in the trace that trace carries.
func submittedPayload(id string, record []byte, trace telemetry.Carrier) ([]byte, error) {
	p := payload{JobID: id, Trace: trace}
	if len(record) <= heldRecordMax {
		p.Record = record
	}
	return job.EncodeJSON(p)
}

// submitScript writes a job's record and task unless either exists: first, unless the
// task's hash KEYS[6] exists (-2), the record as redisstore.CreateLua does with its
// KEYS[1..5] and ARGV[1..10] (-1 when the record exists, 0 when its owner is at the
// cap, a table when it is at its budget); then what asynq's enqueue script writes
// (KEYS[6] with the task's message ARGV[11] and the time ARGV[12] in unix ns, and its
// id ARGV[6] pushed on the pending list KEYS[7]), lists the queue ARGV[13] in KEYS[8]
// as asynq's client does once per process (unless KEYS[8] is not given: in Redis
// Cluster the listing is in another slot, and Runner.Register keeps it), and announces
// the task on the channel ARGV[14] with ARGV[15] (PUBLISH, or SPUBLISH in Redis
// Cluster, where the channel carries the queue's hash tag) when the list was empty. It
// returns 1 when it wrote.
//
// Only a task that finds the list empty is announced: a worker holds its dequeue only
// after finding the list empty, so the push that made it non-empty since was announced
// and woke it, and a worker dequeues again at once after each task it takes, until the
// list is empty. Announcing every task cost each worker a message per job under load,
// when none holds.
var submitScript = redis.NewScript(submitLua("KEYS[8]", ""))

// submitOnceScript is submitScript with the idempotency key KEYS[8] checked first
// (redisstore.OnceCheckLua: {-4, its first use} when it holds one) and written with
// the record (ARGV[16], for ARGV[17] ms); the queues' listing is then KEYS[9].
var submitOnceScript = redis.NewScript(redisstore.OnceCheckLua("KEYS[8]") +
	submitLua("KEYS[9]", redisstore.OnceSetLua("KEYS[8]", "ARGV[16]", "ARGV[17]")))

// submitLua is the body of the submit scripts, with the queues' listing at the key
// listing and then the Lua then, run once the record is written.
func submitLua(listing, then string) string {
	return `
if redis.call('EXISTS', KEYS[6]) == 1 then return -2 end
` + redisstore.CreateLua + then + `
redis.call('HSET', KEYS[6], 'msg', ARGV[11], 'state', 'pending', 'pending_since', ARGV[12])
if ` + listing + ` then redis.call('SADD', ` + listing + `, ARGV[13]) end
if redis.call('LPUSH', KEYS[7], ARGV[6]) == 1 then redis.call(ARGV[15], ARGV[14], ARGV[6]) end
return 1
`
}
