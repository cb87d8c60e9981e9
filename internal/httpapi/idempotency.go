package httpapi

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/inferd/inferd/internal/httpapi/problem"
	"github.com/inferd/inferd/internal/job"
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
		return nil, &problem.Error{Status: http.StatusBadRequest, Code: problem.CodeInvalidRequest,
			Detail: `the Idempotency-Key header must be a structured-field string ("like-this") or the same characters unquoted: at most 257 printable ASCII characters, quotes included, and not empty`}
	}
	return &job.Idempotency{Key: key, Fingerprint: fingerprint(op, model, version, input)}, nil
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

// fingerprint names a submission's operation and body: the members' order and the
// whitespace between tokens do not change it, the values do.
func fingerprint(op, model, version string, input json.RawMessage) string {
	var compact bytes.Buffer
	if json.Compact(&compact, input) != nil {
		compact.Reset()
		compact.Write(input) // validated already; kept as sent should it not compact
	}
	h := sha256.New()
	for _, part := range []string{op, model, version} {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	h.Write(compact.Bytes())
	return hex.EncodeToString(h.Sum(nil))
}
