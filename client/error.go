package client

import (
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Error is the answer to every call the server refused (any status outside 2xx). Its
// fields come from the RFC 9457 problem the server sends; when the body is not a
// problem (a proxy's error page, say), Status is still set, Title is the status text,
// Detail the start of the body and RequestID the X-Request-ID header if any.
type Error struct {
	Status    int    // the HTTP status
	Code      string // the contract's machine-readable code, one of the Code* constants
	Title     string // a short summary of the kind of problem
	Detail    string // what went wrong with this request and what to do about it
	RequestID string // quote it when reporting a problem
	// RetryAfter is the Retry-After header (429, 503): how long to wait before trying
	// again. Zero when the server sent none.
	RetryAfter time.Duration
	Type       string // the problem's type URI
	Instance   string // the request's path, as the server saw it

	body []byte
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "inferd: %d", e.Status)
	if e.Code != "" {
		b.WriteString(" " + e.Code)
	}
	switch {
	case e.Detail != "":
		b.WriteString(": " + e.Detail)
	case e.Title != "":
		b.WriteString(": " + e.Title)
	}
	if e.RequestID != "" {
		b.WriteString(" (request " + e.RequestID + ")")
	}
	return b.String()
}

// IsCode reports whether err is (or wraps) an *Error with the given code.
func IsCode(err error, code string) bool {
	var e *Error
	return errors.As(err, &e) && e.Code == code
}

// maxDetail bounds the Detail taken from a body that is not a problem.
const maxDetail = 200

func newError(resp *http.Response, body []byte) *Error {
	e := &Error{
		Status:     resp.StatusCode,
		RequestID:  resp.Header.Get("X-Request-ID"),
		RetryAfter: retryAfter(resp.Header.Get("Retry-After")),
		body:       body,
	}
	if oipError(body, e) { // the /v2 operations answer in the protocol's shape
		e.Title = http.StatusText(resp.StatusCode)
		return e
	}
	var p Problem
	if isProblem(resp.Header.Get("Content-Type"), body, &p) {
		e.Code, e.Title, e.Detail, e.Type = p.Code, p.Title, p.Detail, p.Type
		if p.RequestId != "" {
			e.RequestID = p.RequestId
		}
		if p.Instance != nil {
			e.Instance = *p.Instance
		}
		return e
	}
	e.Title = http.StatusText(resp.StatusCode)
	if d := strings.TrimSpace(string(body)); utf8.ValidString(d) {
		if len(d) > maxDetail {
			d = strings.ToValidUTF8(d[:maxDetail], "") + "..."
		}
		e.Detail = d
	}
	return e
}

// isProblem decodes body into p when it is a problem: sent as problem+json, or as
// plain JSON with a code (some proxies rewrite the media type).
func isProblem(contentType string, body []byte, p *Problem) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil || (mt != "application/problem+json" && mt != "application/json") {
		return false
	}
	return json.Unmarshal(body, p) == nil && (mt == "application/problem+json" || p.Code != "")
}

// retryAfter reads Retry-After as seconds or as an HTTP date.
func retryAfter(v string) time.Duration {
	if v == "" {
		return 0
	}
	if n, err := strconv.Atoi(v); err == nil && n >= 0 {
		return time.Duration(n) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := time.Until(t); d > 0 {
			return d
		}
	}
	return 0
}

// JobError is what WaitJob returns for a job that finished without a result: its
// status is failed (Record.ErrorMessage says why) or cancelled.
type JobError struct {
	Record *JobRecord
}

func (e *JobError) Error() string {
	if e.Record.Status == JobFailed && e.Record.ErrorMessage != nil {
		return fmt.Sprintf("inferd: job %s failed: %s", e.Record.JobId, *e.Record.ErrorMessage)
	}
	return fmt.Sprintf("inferd: job %s %s", e.Record.JobId, e.Record.Status)
}

// ItemError is an item's failure in a batch answered with OnErrorContinue, as the
// *Error the server would have refused a batch of that item alone with: IsCode and
// the Code* constants apply to it. Its Detail names the item items[e.Index]; it has no
// RequestID of its own (the batch's answer was a 200).
func ItemError(e BatchItemError) *Error {
	return &Error{Status: e.Status, Code: e.Code, Title: http.StatusText(e.Status), Detail: e.Detail}
}
