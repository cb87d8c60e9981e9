package httpapi

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"sync"

	"github.com/inferd/inferd/internal/problem"
)

// jsonEncoder is a buffer with its encoder, reused across responses.
type jsonEncoder struct {
	buf bytes.Buffer
	enc *json.Encoder
}

var jsonEncoders = sync.Pool{New: func() any {
	e := &jsonEncoder{}
	e.enc = json.NewEncoder(&e.buf)
	// The answers are JSON for API clients, never HTML: escaping <, > and & in them
	// only costs time and changes what a client sent.
	e.enc.SetEscapeHTML(false)
	return e
}}

// contentTypeJSON is shared by every response: net/http only reads header values.
var contentTypeJSON = []string{"application/json"}

// writeJSON answers 200 with v, and X-Model-Version when version is set. It encodes
// before writing the status, so a value that cannot be encoded, or that passes limit
// (MAX_RESPONSE_BYTES), can still be answered as a problem, and sends the length, so
// that a large answer is not chunked. On a
// nearly idle server (statusWriter.early) the answer is complete when written, so it
// is sent at once. The request gives back its place under MAX_CONCURRENT_PER_KEY
// first, so that a client that sends its next request on receiving this answer is not
// refused for this one. Otherwise net/http sends it when the handler returns.
func writeJSON(w http.ResponseWriter, v any, version *string, limit int64) error {
	e := jsonEncoders.Get().(*jsonEncoder)
	defer func() {
		if e.buf.Cap() <= 1<<20 {
			jsonEncoders.Put(e)
		}
	}()
	e.buf.Reset()
	if !encodePrediction(&e.buf, v) {
		if err := e.enc.Encode(v); err != nil {
			return err
		}
	}
	if n := int64(e.buf.Len()); n > limit {
		return problem.ResponseTooLarge(n, limit, "split the batch, or send less data")
	}
	h := w.Header()
	h["Content-Type"] = contentTypeJSON
	if version != nil {
		h["X-Model-Version"] = []string{*version}
	}
	h["Content-Length"] = []string{strconv.Itoa(e.buf.Len())}
	w.WriteHeader(http.StatusOK)
	if _, err := w.Write(e.buf.Bytes()); err != nil {
		return err
	}
	if sw, ok := w.(*statusWriter); ok && sw.early {
		sw.giveBack()
		// An error here is the connection's, which net/http also meets and handles.
		_ = http.NewResponseController(w).Flush()
	}
	return nil
}
