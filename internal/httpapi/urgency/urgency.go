package urgency

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/inferd/inferd/gen/api"
	"github.com/inferd/inferd/internal/httpapi/validator"
	"github.com/inferd/inferd/internal/job"
	"github.com/inferd/inferd/internal/problem"
)

// Job is a submission's priority and deadline as the contract's types hold them.
type Job struct {
	Priority *api.JobPriority
	Deadline *time.Time
}

// Parse checks the priority and deadline. A deadline already past is taken: the
// contract cannot tell it from a later one, and the job ends failed, unrun, when a
// worker reaches it, as any job past its deadline does. 0001-01-01T00:00:00Z, Go's
// zero time, is such a deadline too, not the absence of one.
func (u Job) Parse() (job.Priority, *time.Time, error) {
	var p job.Priority
	if u.Priority != nil {
		p = job.Priority(*u.Priority)
		if !p.Valid() {
			return "", nil, &problem.Error{Kind: problem.Invalid, Code: problem.CodeInvalidRequest,
				Detail: `priority must be "low", "normal" or "high"`}
		}
	}
	if u.Deadline == malformedDeadline {
		return "", nil, &problem.Error{Kind: problem.Invalid, Code: problem.CodeInvalidRequest,
			Detail: "deadline must be an RFC 3339 time with an offset, such as 2026-11-22T10:05:00Z"}
	}
	var d *time.Time
	if u.Deadline != nil {
		t := *u.Deadline
		d = &t
	}
	return p, d, nil
}

// DeadlineText is a deadline as an idempotency fingerprint names it.
func DeadlineText(d *time.Time) string {
	if d == nil {
		return ""
	}
	return d.UTC().Format(time.RFC3339Nano)
}

// Priority is the one-pass body's priority, as the generated handler would bind it.
func Priority(in *validator.Input) *api.JobPriority {
	if in.Priority == "" {
		return nil
	}
	p := api.JobPriority(in.Priority)
	return &p
}

// Deadline is the one-pass body's deadline; one that does not parse as RFC 3339 is
// given as malformedDeadline, which Parse refuses (the contract's format check refuses
// it first).
func Deadline(in *validator.Input) *time.Time {
	if in.Deadline == "" {
		return nil
	}
	d, err := time.Parse(time.RFC3339Nano, in.Deadline)
	if err != nil {
		return malformedDeadline
	}
	return &d
}

// malformedDeadline stands, by its address, for a deadline that did not parse: every
// instant, the zero time included, is a deadline a client may send.
var malformedDeadline = new(time.Time)

// maxRequestTimeout bounds Request-Timeout (the contract's pattern allows 9999.999...).
const maxRequestTimeout = time.Hour

// ClientTimeout is a synchronous request's context ended at its Request-Timeout, when
// it sent one: the dynamic batcher then drops its items that still wait once it has
// passed, and the answer is 503 request_cancelled (TimedOut). The smallest is a
// nanosecond, 0.000000001, the pattern's last decimal: it is taken as it is, though
// no answer comes that soon.
func ClientTimeout(ctx context.Context, header *string) (context.Context, context.CancelFunc, error) {
	if header == nil {
		return ctx, func() {}, nil
	}
	d, err := requestTimeout(*header)
	if err != nil {
		return ctx, nil, &problem.Error{Kind: problem.Invalid, Code: problem.CodeInvalidRequest,
			Detail: "the Request-Timeout header must be " + err.Error() + "; got " + quoteShort(*header)}
	}
	ctx, cancel := context.WithTimeoutCause(ctx, d, errClientTimeout)
	return ctx, cancel, nil
}

// requestTimeout reads a Request-Timeout exactly, its decimals as nanoseconds: through
// a float, about one value in 50 came out a nanosecond short.
// It takes what the contract's pattern, ^[0-9]{1,4}(\.[0-9]{1,9})?$, does, and its
// error says which part of the pattern a value missed.
func requestTimeout(s string) (time.Duration, error) {
	whole, frac, point := strings.Cut(s, ".")
	switch {
	case !digits(whole) || !digits(frac) || whole == "" || point && frac == "":
		return 0, errors.New("a decimal number of seconds, such as 2.5 or 0.25 (digits and a point: no sign, exponent or unit)")
	case len(frac) > 9:
		return 0, errors.New("a number of seconds with at most 9 decimals (a nanosecond), such as 2.5")
	case len(whole) > 4:
		return 0, errors.New("at most 3600 seconds, an hour (at most 4 digits before the point)")
	}
	secs, _ := strconv.ParseInt(whole, 10, 64)                                  // at most 4 digits
	nanos, _ := strconv.ParseInt(frac+strings.Repeat("0", 9-len(frac)), 10, 64) // at most 9
	d := time.Duration(secs)*time.Second + time.Duration(nanos)
	switch {
	case d <= 0:
		return 0, errors.New("above 0 seconds (the least is 0.000000001, a nanosecond)")
	case d > maxRequestTimeout:
		return 0, errors.New("at most 3600 seconds, an hour")
	}
	return d, nil
}

// digits reports whether s is ASCII digits only.
func digits(s string) bool {
	return strings.Trim(s, "0123456789") == ""
}

// quoteShort quotes a header's value for a problem's detail, its first 32 bytes.
func quoteShort(s string) string {
	if len(s) > 32 {
		return strconv.Quote(s[:32]) + "..."
	}
	return strconv.Quote(s)
}

// errClientTimeout is the cause of a context ended by Request-Timeout.
var errClientTimeout = errors.New("Request-Timeout passed")

// TimedOut words err for a request whose Request-Timeout passed before it was
// answered; any other err is returned as it is.
func TimedOut(ctx context.Context, header *string, err error) error {
	if err == nil || !errors.Is(context.Cause(ctx), errClientTimeout) {
		return err
	}
	return &problem.Error{Kind: problem.Unavailable, Code: problem.CodeCancelled,
		Detail: "the request's Request-Timeout (" + *header + " s) passed before the prediction finished; its items still waiting for the model were dropped"}
}
