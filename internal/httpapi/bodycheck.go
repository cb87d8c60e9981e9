package httpapi

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/inferd/inferd/internal/problem"
)

// refuseEncoding answers 415 to a body sent with a Content-Encoding (gzip, say): the
// server decodes none, and reading compressed bytes as JSON gave a 400 that blamed
// the JSON instead of the encoding.
func refuseEncoding(w http.ResponseWriter, r *http.Request) bool {
	enc := r.Header.Get("Content-Encoding")
	if !hasBody(r) || enc == "" || strings.EqualFold(strings.TrimSpace(enc), "identity") {
		return false
	}
	writeProblem(w, r, http.StatusUnsupportedMediaType, problem.CodeUnsupportedMediaType,
		fmt.Sprintf("the body is sent with Content-Encoding: %.40s, which the server does not decode; send it uncompressed", enc))
	return true
}
