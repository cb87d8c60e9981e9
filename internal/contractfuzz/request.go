package contractfuzz

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
)

// Kind says what a generated request is, and so which answers are right.
type Kind int

const (
	// Valid requests conform to the contract. They may still name a model, version or
	// job that does not exist, or carry data a model rejects, so 400s with a domain
	// code, 404 and 409 are right; invalid_request, 401, 403, 413 and 415 are not.
	Valid Kind = iota
	// Invalid requests are client mistakes: they must get a 4xx (and Want when set).
	Invalid
	// Odd requests are legal on the wire but at its edges (nesting deeper than
	// decoders go, duplicate keys, invalid UTF-8, odd path segments): any answer but a
	// 5xx.
	Odd
)

func (k Kind) String() string {
	return [...]string{"valid", "invalid", "odd"}[k]
}

// Request is one generated request.
type Request struct {
	Operation string
	Kind      Kind
	What      string // the mutation that made it invalid or odd; "" for a valid one
	Want      int    // the status the contract prescribes for this mistake; 0: any 4xx
	Method    string
	Path      string // as sent: parameters already percent-encoded
	Header    http.Header
	Body      []byte
	HasBody   bool
	Chunked   bool // sent without Content-Length

	template string            // the operation's path template
	params   map[string]string // its path parameters, unencoded
}

// clone is r with its own header, body and path parameters.
func (r Request) clone() Request {
	r.Header = r.Header.Clone()
	r.Body = bytes.Clone(r.Body)
	r.params = maps.Clone(r.params)
	return r
}

func (r Request) String() string {
	what := r.What
	if what == "" {
		what = r.Kind.String()
	}
	return fmt.Sprintf("%s %s (%s: %s) key=%q content-type=%q body=%.300q", r.Method, r.Path, r.Operation, what,
		r.Header.Get("X-API-Key"), r.Header.Get("Content-Type"), r.Body)
}

// Judge returns why the answer status (with the problem's code) is wrong for the
// request, or "" when it is right. declared503 says whether the contract declares 503
// for the operation. Conformance of the answer to the contract is checked apart.
func (r Request) Judge(status int, body []byte, declared503 bool) string {
	if status >= 500 {
		if status == http.StatusServiceUnavailable && declared503 {
			return ""
		}
		return fmt.Sprintf("server error %d", status)
	}
	code := problemCode(body)
	switch r.Kind {
	case Invalid:
		if r.Want != 0 && status != r.Want {
			return fmt.Sprintf("answered %d %s, want %d", status, code, r.Want)
		}
		if status < 400 {
			return fmt.Sprintf("accepted a client mistake with %d", status)
		}
	case Valid:
		switch {
		case status == http.StatusBadRequest && code == "invalid_request",
			status == http.StatusUnauthorized, status == http.StatusForbidden,
			status == http.StatusRequestEntityTooLarge, status == http.StatusUnsupportedMediaType,
			status == http.StatusMethodNotAllowed:
			return fmt.Sprintf("refused a request the contract allows: %d %s", status, code)
		}
	}
	return ""
}

func problemCode(body []byte) string {
	var p struct {
		Code string `json:"code"`
	}
	_ = json.Unmarshal(body, &p)
	return p.Code
}
