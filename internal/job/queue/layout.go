package queue

import (
	"runtime/debug"

	"github.com/inferd/inferd/internal/job"
	"github.com/inferd/inferd/internal/job/redisstore"
)

// LayoutVersion is the asynq release whose Redis layout inferd writes and recognises by
// itself: a Submitter writes tasks as asynq's client would (taskMessage, submitScript),
// and a worker's waker recognises asynq's dequeue script by its keys. Under another
// asynq both could be wrong without an error: tasks no worker decodes, or idle workers
// that poll Redis a thousand times a second. A binary built with another asynq runs
// plain asynq instead (see LayoutKnown).
const LayoutVersion = "v0.26.0"

// asynqModule is asynq's module path, as build information names it.
const asynqModule = "github.com/hibiken/asynq"

// AsynqVersion is the version of asynq this binary is built with, or "" when the
// binary lists no dependencies (a test binary: go test records none).
func AsynqVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	for _, dep := range bi.Deps {
		if dep.Path != asynqModule {
			continue
		}
		if dep.Replace != nil {
			return dep.Replace.Version
		}
		return dep.Version
	}
	return ""
}

// LayoutKnown reports whether asynq version is the one whose layout inferd writes and
// recognises. When it is not, an API server queues through asynq's own client
// (Runner, not Submitter) and a worker polls as plain asynq does (WorkerOptions
// PlainAsynq). An unknown version ("") is a binary built from this module without a
// list of dependencies, so with go.mod's asynq, which TestLayoutVersion holds to
// LayoutVersion.
func LayoutKnown(version string) bool { return version == LayoutVersion || version == "" }

// NewJobSubmitter is the job.Submitter of an API server in queue mode: a Submitter,
// which records and queues a job in one round trip, when asynq's layout is the one it
// writes (asynqVersion is LayoutVersion); else r after store in job.Steps, queueing
// through asynq's own client after the record is written.
func NewJobSubmitter(r *Runner, store *redisstore.Store, asynqVersion string) job.Submitter {
	if LayoutKnown(asynqVersion) {
		return NewSubmitter(r, store)
	}
	return job.Steps{Store: store, Runner: r}
}
