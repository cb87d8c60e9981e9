// Package queue runs jobs through asynq on Redis: the queue mode of inferd, where API
// servers enqueue and separate worker processes execute, sharing one Redis.
//
// The job record (package redisstore) is the truth the API serves; asynq only carries
// the job id to a worker. Delivery is at least once and the result is written once:
// every delivery calls job.Executor.Execute, which skips a job already final and
// discards a result that lost the race to another delivery or to a cancel.
//
// A Runner queues jobs: Enqueue makes one asynq task per job with the job id as its
// TaskID; Abandon deletes a waiting task, or signals the worker running it. The API
// server's job.Submitter is a Submitter, a Runner that also records and queues a job
// in one script (the record, pending; the task, laid out as asynq's client would; the
// announcement to idle workers), one round trip where four were. Its task carries the
// record when small, so the worker marks the job running without reading it first.
// A job's life costs the API one round trip and a worker about three: dequeue, record
// the result, tell asynq the task is done (TestRoundTripsPerJob). A first delivery
// runs at once and is marked running only if it outlasts job.DefaultRunningAfter
// (job.Executor.ExecuteFresh); a retry is marked first, since it has likely run.
//
// Each shard has a queue per job priority (TaskOptions.Queues): normal keeps the
// shard's name, high and low stand beside it in its Redis Cluster slot, and a Worker
// weighs them 6:3:1 as asynq weighs queues. Most of them are empty at any moment, so
// the waker answers a dequeue of a queue found empty since its last announcement by
// itself, for up to PollInterval. A Submitter given an idempotency key checks and
// writes it in its one script too (redisstore.OnceCheckLua).
//
// A Worker is an asynq.Server whose one handler calls job.Executor.Execute. It is
// tuned away from three asynq defaults that do not fit an API whose clients poll:
//
//   - Pickup: an idle asynq server polls every TaskCheckInterval, sleeping between
//     0.5 and 1.5 times it, and nothing cuts the sleep short. A Runner announces on a
//     pub/sub channel each task that finds the queue empty (a busy queue needs no
//     announcement: no worker holds while tasks wait, see submitScript), and a Worker
//     holds its empty polls (a hook on its Redis client, see waker) until an
//     announcement or WorkerOptions.PollInterval (50 ms), so an idle worker starts an
//     announced job a round trip after it was queued, and any other (a retry, a lost
//     announcement) within the interval.
//   - Crash recovery: asynq v0.26.0 holds a task under a 30 s lease that the worker's
//     heartbeat extends every 5 s, and its recoverer, every minute, retries tasks whose
//     lease ended more than 30 s ago: 60 to 120 s after a SIGKILL, plus the retry delay.
//     None of that is configurable. Each Worker therefore also runs its own recoverer
//     (every WorkerOptions.RecoverInterval, default 5 s) that re-enqueues, under a
//     derived TaskID, any job whose task's lease has ended and whose record is not
//     final. A job whose worker is killed runs again on another worker at most
//     30 s + RecoverInterval + PollInterval*1.5 after the kill (about 35 s with the
//     defaults), as long as worker clocks agree within a few seconds. asynq's own
//     recoverer later redelivers the orphaned original too; that delivery finds the
//     record final and does nothing. A lease left unrenewed for 15 s is reported on
//     the job's record before it ends (job.Executor.WorkerLost: when its worker was
//     last heard from, and when the job runs again), and the recoverer looks again
//     as it ends.
//   - Cancellation: asynq's CancelProcessing cancels the handler's context and sends
//     the task to retry (hibiken/asynq#532, #968). The record is already cancelled by
//     then, so the retry finds it final and returns nil: one no-op redelivery, not a
//     loop. IsFailure does not count a cancellation against MaxRetry.
//
// Graceful shutdown is asynq's: Worker.Shutdown stops taking tasks, waits up to
// WorkerOptions.ShutdownTimeout for running ones, and puts the rest back in the queue,
// where another worker runs them again (their records stay running until then, since a
// status never moves back).
package queue
