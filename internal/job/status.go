package job

// Status is where a job is in its life.
type Status string

// The statuses of a job. A job moves forward only: created -> pending -> running ->
// succeeded | failed, and cancelled from any status that is not final.
const (
	StatusCreated   Status = "created"
	StatusPending   Status = "pending"
	StatusRunning   Status = "running"
	StatusSucceeded Status = "succeeded"
	StatusFailed    Status = "failed"
	StatusCancelled Status = "cancelled"
)

var rank = map[Status]int{StatusCreated: 0, StatusPending: 1, StatusRunning: 2, StatusSucceeded: 3, StatusFailed: 3, StatusCancelled: 3}

// Final reports whether s ends a job.
func (s Status) Final() bool { return rank[s] == 3 }

// CanMoveTo reports whether a job in s may move to next. Statuses never go backwards
// and a final status never changes, so a late or repeated writer cannot undo a result.
func (s Status) CanMoveTo(next Status) bool {
	r, ok := rank[s]
	n, ok2 := rank[next]
	return ok && ok2 && !s.Final() && n > r
}
