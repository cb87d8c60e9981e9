package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"net"
	"slices"
	"strconv"
	"strings"

	"github.com/inferd/inferd/client"
)

// Exit codes: scripts branch on these, so they are part of inferctl's interface and
// listed in `inferctl --help` and docs/cli.md.
const (
	ExitOK        = 0 // the command did what it was asked
	ExitError     = 1 // anything else: a file that cannot be read, an answer that makes no sense
	ExitUsage     = 2 // bad command line, or input that is not JSON or CSV: nothing was sent
	ExitClient    = 3 // the server refused the request (4xx other than 401/403)
	ExitAuth      = 4 // 401 or 403: a missing, unknown or under-scoped key
	ExitServer    = 5 // 5xx, or the server could not be reached or timed out
	ExitJobFailed = 6 // the job ended failed
	ExitCancelled = 7 // the job ended cancelled
	ExitPartial   = 8 // batch --continue-on-error: some items failed, the others were answered
)

const exitCodesHelp = `Exit codes:
  0  ok
  1  other error (a file that cannot be read, an unexpected answer)
  2  usage: bad command line or input that is not valid JSON/CSV; nothing was sent
  3  the server refused the request: 4xx other than 401/403 (bad input, no such model or job, 413, 429)
  4  authentication: 401 (missing or unknown key) or 403 (key lacks the scope)
  5  server: 5xx, or the server could not be reached or did not answer in time
  6  the job failed (jobs wait, submit --wait)
  7  the job was cancelled (jobs wait, submit --wait)
  8  batch --continue-on-error: some items failed (all failed: the first one's code)
`

// usageError is a mistake on the command line: nothing was sent to the server.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

// notFoundError is something inferctl looked up and the server does not have, found
// out without a 404 of the server's own (e.g. no versions of a model in the list).
type notFoundError string

func (e notFoundError) Error() string { return string(e) }

// located is an error that can say which part of the input it concerns.
type located interface {
	error
	where() string
}

// exitCode maps an error to the code scripts see.
func exitCode(err error) int {
	if err == nil {
		return ExitOK
	}
	var bf *batchFailures
	if errors.As(err, &bf) {
		return bf.exitCode()
	}
	var ue usageError
	if errors.As(err, &ue) {
		return ExitUsage
	}
	var nf notFoundError
	if errors.As(err, &nf) {
		return ExitClient
	}
	var je *client.JobError
	if errors.As(err, &je) {
		if je.Record.Status == client.JobCancelled {
			return ExitCancelled
		}
		return ExitJobFailed
	}
	if p := asProblem(err); p != nil {
		switch {
		case p.Status == 401 || p.Status == 403:
			return ExitAuth
		case p.Status >= 400 && p.Status < 500:
			return ExitClient
		case p.Status >= 500:
			return ExitServer
		}
		return ExitError
	}
	// A file that cannot be read is local: its syscall.Errno would pass for a
	// net.Error below.
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return ExitError
	}
	// Refused connections, unknown hosts and timeouts: the server is not there for us.
	var ne net.Error
	if errors.As(err, &ne) || errors.Is(err, context.DeadlineExceeded) {
		return ExitServer
	}
	return ExitError
}

// message is the one line printed on stderr for err:
// `404 model_not_found: <detail> (request <id>)` for a problem.
func message(err error) string {
	p := asProblem(err)
	if p == nil {
		// The SDK's messages start with its name; inferctl prints its own.
		return oneLine(strings.TrimPrefix(err.Error(), "inferd: "))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d", p.Status)
	if p.Code != "" {
		b.WriteString(" " + p.Code)
	}
	switch {
	case p.Detail != "":
		b.WriteString(": " + p.Detail)
	case p.Title != "":
		b.WriteString(": " + p.Title)
	}
	if p.RetryAfter > 0 {
		fmt.Fprintf(&b, "; retry after %s", p.RetryAfter)
	}
	if p.RequestID != "" {
		b.WriteString(" (request " + p.RequestID + ")")
	}
	var l located
	if errors.As(err, &l) {
		b.WriteString("; " + l.where())
	}
	return oneLine(b.String())
}

// oneLine keeps a message on one line so that `2>&1 | grep` and log collectors see
// one record per failure.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// batchFailures ends a batch run with --continue-on-error in which items failed; each
// was reported on its own as it came.
type batchFailures struct {
	name  string
	total int
	lines []int // the failed items' lines, in order
	first error
}

func newBatchFailures(its *items, failed map[int]error) *batchFailures {
	idx := slices.Sorted(maps.Keys(failed))
	f := &batchFailures{name: its.name, total: len(its.lines), first: failed[idx[0]]}
	for _, i := range idx {
		f.lines = append(f.lines, its.lines[i])
	}
	return f
}

// shownLines bounds the lines the summary lists; each failure has had its own line.
const shownLines = 5

func (f *batchFailures) Error() string {
	if len(f.lines) == f.total {
		return fmt.Sprintf("all %d items of %s failed", f.total, f.name)
	}
	var ls []string
	for _, l := range f.lines[:min(len(f.lines), shownLines)] {
		ls = append(ls, strconv.Itoa(l))
	}
	list := ""
	switch {
	case len(f.lines) == 1:
		list = "line " + ls[0]
	case len(f.lines) > shownLines:
		list = fmt.Sprintf("lines %s and %d more", strings.Join(ls, ", "), len(f.lines)-shownLines)
	default:
		list = "lines " + strings.Join(ls[:len(ls)-1], ", ") + " and " + ls[len(ls)-1]
	}
	return fmt.Sprintf("%d of %d items failed (%s of %s); %d answered", len(f.lines), f.total, list, f.name, f.total-len(f.lines))
}

// exitCode is ExitPartial when some items were answered; when none was, the code of
// the first failure, as if the run had stopped there without --continue-on-error.
func (f *batchFailures) exitCode() int {
	if len(f.lines) < f.total {
		return ExitPartial
	}
	return exitCode(f.first)
}
