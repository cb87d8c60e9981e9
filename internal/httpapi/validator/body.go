package validator

import (
	"errors"
	"fmt"
	"io"
	"net"
	"unicode/utf8"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
)

// notUTF8 refuses a body that is not UTF-8 (RFC 8259 8.1). encoding/json would
// replace the bad bytes by U+FFFD, so a model would see, and an echo return, text the
// client never sent.
func notUTF8(body *openapi3.RequestBody, b []byte) error {
	if utf8.Valid(b) {
		return nil
	}
	at := 0
	for at < len(b) {
		r, size := utf8.DecodeRune(b[at:])
		if r == utf8.RuneError && size <= 1 {
			break
		}
		at += size
	}
	return &openapi3filter.RequestError{RequestBody: body, Reason: fmt.Sprintf(
		"the body is not valid UTF-8 (byte %d is 0x%02x); JSON text must be UTF-8", at, b[at])}
}

// ErrBodyTimeout marks a body that did not arrive within the server's read timeout.
var ErrBodyTimeout = errors.New("the request body did not arrive in time")

// bodyReadError words a failure to read a request body: a body cut short (the client
// closed the connection before its Content-Length or last chunk) is the client's 400,
// one that stalled until the read timeout a 408; a malformed chunk says so.
func bodyReadError(body *openapi3.RequestBody, err error) error {
	var ne net.Error
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		return &openapi3filter.RequestError{RequestBody: body, Reason: "the body ended before its Content-Length or its last chunk; send all of it"}
	case errors.As(err, &ne) && ne.Timeout():
		return &openapi3filter.RequestError{RequestBody: body, Reason: "reading", Err: fmt.Errorf("%w: send it at once, or faster", ErrBodyTimeout)}
	}
	return &openapi3filter.RequestError{RequestBody: body, Reason: "reading failed", Err: err}
}
