package httpapi

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"sync"

	"github.com/inferd/inferd/internal/job"
	"github.com/inferd/inferd/internal/jsonscan"
	"github.com/inferd/inferd/internal/problem"
)

// maxIdempotencyKey bounds an Idempotency-Key header's characters as sent: 255 and
// the quotes of a structured-field string (openapi.yaml's maxLength).
const maxIdempotencyKey = 257

// idempotencyOf reads a submission's Idempotency-Key (nil when it sent none) for the
// operation op whose body is model, version and input: the key as the IETF draft has
// it, a structured-field string ("..."), or the same characters unquoted, which is
// what many clients send.
func idempotencyOf(header *string, op, model, version string, input json.RawMessage) (*job.Idempotency, error) {
	if header == nil {
		return nil, nil
	}
	key, ok := parseIdempotencyKey(*header)
	if !ok {
		return nil, &problem.Error{Kind: problem.Invalid, Code: problem.CodeInvalidRequest,
			Detail: `the Idempotency-Key header must be a structured-field string ("like-this") or the same characters unquoted: at most 257 printable ASCII characters, quotes included, and not empty`}
	}
	return &job.Idempotency{Key: key, Fingerprint: fingerprint(op, model, version, input),
		Earlier: func() string { return textFingerprint(op, model, version, input) }}, nil
}

// parseIdempotencyKey returns the key a header value holds.
func parseIdempotencyKey(v string) (string, bool) {
	v = strings.TrimSpace(v)
	if len(v) > maxIdempotencyKey {
		return "", false
	}
	if len(v) >= 1 && v[0] == '"' {
		// An sf-string: printable ASCII between quotes, \" and \\ its only escapes.
		var b strings.Builder
		for i := 1; i < len(v); i++ {
			c := v[i]
			switch {
			case c == '"':
				if i != len(v)-1 {
					return "", false
				}
				return b.String(), b.Len() > 0
			case c == '\\':
				i++
				if i >= len(v) || v[i] != '"' && v[i] != '\\' {
					return "", false
				}
				b.WriteByte(v[i])
			case c < 0x20 || c > 0x7e:
				return "", false
			default:
				b.WriteByte(c)
			}
		}
		return "", false // no closing quote
	}
	if v == "" {
		return "", false
	}
	for i := 0; i < len(v); i++ {
		if v[i] < 0x20 || v[i] > 0x7e {
			return "", false
		}
	}
	return v, true
}

// fingerprint names a submission's operation and body: the body counts by the JSON
// value it holds (jsonscan.AppendCanonical), so whitespace, the order of members at
// any depth, how a string is escaped and how a number is spelled (1, 1.0, 1e0) do not
// change it; the values do, exactly.
func fingerprint(op, model, version string, input json.RawMessage) string {
	buf := canonicalBufs.Get().(*[]byte)
	defer func() {
		if cap(*buf) <= 1<<20 { // a huge body's is left to the collector
			canonicalBufs.Put(buf)
		}
	}()
	canon, ok := jsonscan.AppendCanonical((*buf)[:0], input)
	if !ok {
		canon = append(canon[:0], input...) // validated already; kept as sent should it not read
	}
	*buf = canon
	return digest(canon, op, model, version)
}

// textFingerprint is fingerprint as servers before 1.7.0 took it, of the body's text
// without whitespace: the idempotency keys they recorded hold it (job.Idempotency's
// Earlier).
func textFingerprint(op, model, version string, input json.RawMessage) string {
	var compact bytes.Buffer
	if json.Compact(&compact, input) != nil {
		compact.Reset()
		compact.Write(input)
	}
	return digest(compact.Bytes(), op, model, version)
}

// canonicalBufs recycles the canonical texts of bodies, which live only until hashed.
var canonicalBufs = sync.Pool{New: func() any { return new([]byte) }}

// digest is the SHA-256 of parts, each ended by a NUL, then of last.
func digest(last []byte, parts ...string) string {
	h := sha256.New()
	for _, part := range parts {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	h.Write(last)
	return hex.EncodeToString(h.Sum(nil))
}
