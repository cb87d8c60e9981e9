package httpapi

import (
	"context"
	"errors"
	"net/http"
	"regexp"
	"strconv"
	"time"

	"github.com/inferd/inferd/gen/api"
	"github.com/inferd/inferd/internal/httpapi/problem"
	"github.com/inferd/inferd/internal/httpapi/validator"
	"github.com/inferd/inferd/internal/job"
)

// urgency is a submission's priority and deadline as the contract's types hold them.
type urgency struct {
	priority *api.JobPriority
	deadline *time.Time
}

// parse checks the priority and deadline. A deadline already past is taken: the
// contract cannot tell it from a later one, and the job ends failed, unrun, when a
// worker reaches it, as any job past its deadline does.
func (u urgency) parse() (job.Priority, time.Time, error) {
	var p job.Priority
	if u.priority != nil {
		p = job.Priority(*u.priority)
		if !p.Valid() {
			return "", time.Time{}, &problem.Error{Status: http.StatusBadRequest, Code: problem.CodeInvalidRequest,
				Detail: `priority must be "low", "normal" or "high"`}
		}
	}
	var d time.Time
	if u.deadline != nil {
		if u.deadline.IsZero() {
			return "", time.Time{}, &problem.Error{Status: http.StatusBadRequest, Code: problem.CodeInvalidRequest,
				Detail: "deadline must be an RFC 3339 time with an offset, such as 2026-11-22T10:05:00Z"}
		}
		d = *u.deadline
	}
	return p, d, nil
}

// deadlineText is a deadline as an idempotency fingerprint names it.
func deadlineText(d time.Time) string {
	if d.IsZero() {
		return ""
	}
	return d.UTC().Format(time.RFC3339Nano)
}

// inPriority is the one-pass body's priority, as the generated handler would bind it.
func inPriority(in *validator.Input) *api.JobPriority {
	if in.Priority == "" {
		return nil
	}
	p := api.JobPriority(in.Priority)
	return &p
}

// inDeadline is the one-pass body's deadline; one that does not parse as RFC 3339 is
// given as the zero time, which parse refuses (the contract's format check refuses it
// first).
func inDeadline(in *validator.Input) *time.Time {
	if in.Deadline == "" {
		return nil
	}
	d, err := time.Parse(time.RFC3339Nano, in.Deadline)
	if err != nil {
		d = time.Time{}
	}
	return &d
}

// requestTimeoutPattern is the contract's for Request-Timeout.
var requestTimeoutPattern = regexp.MustCompile(`^[0-9]{1,4}(\.[0-9]{1,9})?$`)

// maxRequestTimeout bounds Request-Timeout (the contract's pattern allows 9999.999...).
const maxRequestTimeout = time.Hour

// clientTimeout is a synchronous request's context ended at its Request-Timeout, when
// it sent one: the dynamic batcher then drops its items that still wait once it has
// passed, and the answer is 503 request_cancelled (timedOut).
func clientTimeout(ctx context.Context, header *string) (context.Context, context.CancelFunc, error) {
	if header == nil {
		return ctx, func() {}, nil
	}
	var d time.Duration
	if requestTimeoutPattern.MatchString(*header) {
		secs, _ := strconv.ParseFloat(*header, 64) // the pattern's decimals parse
		d = time.Duration(secs * float64(time.Second))
	}
	if d <= 0 || d > maxRequestTimeout {
		return ctx, nil, &problem.Error{Status: http.StatusBadRequest, Code: problem.CodeInvalidRequest,
			Detail: "the Request-Timeout header must be a number of seconds above 0 and at most 3600, such as 2.5"}
	}
	ctx, cancel := context.WithTimeoutCause(ctx, d, errClientTimeout)
	return ctx, cancel, nil
}

// errClientTimeout is the cause of a context ended by Request-Timeout.
var errClientTimeout = errors.New("Request-Timeout passed")

// timedOut words err for a request whose Request-Timeout passed before it was
// answered; any other err is returned as it is.
func timedOut(ctx context.Context, header *string, err error) error {
	if err == nil || !errors.Is(context.Cause(ctx), errClientTimeout) {
		return err
	}
	return &problem.Error{Status: http.StatusServiceUnavailable, Code: problem.CodeCancelled,
		Detail: "the request's Request-Timeout (" + *header + " s) passed before the prediction finished; its items still waiting for the model were dropped"}
}
