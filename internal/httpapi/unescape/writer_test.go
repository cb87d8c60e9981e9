package unescape_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/inferd/inferd/internal/httpapi/unescape"
)

// TestHTML: the first write of a JSON document is unescaped, other content types and
// later writes pass as they are, and a skipped request is not touched.
func TestHTML(t *testing.T) {
	tests := []struct {
		name, contentType string
		writes            []string
		skip              bool
		want              string
	}{
		{"json", "application/json", []string{`{"a":"\u003cb\u003e \u0026 \\u003c"}` + "\n"}, false, `{"a":"<b> & \\u003c"}` + "\n"},
		{"problem", "application/problem+json", []string{`"\u0026"` + "\n"}, false, `"&"` + "\n"},
		{"later write", "application/json", []string{"[1,\n", `"\u003c"]` + "\n"}, false, "[1,\n" + `"\u003c"]` + "\n"},
		{"text", "text/plain", []string{`\u003c` + "\n"}, false, `\u003c` + "\n"},
		{"not a whole document", "application/json", []string{`"\u003c"`}, false, `"\u003c"`},
		{"skipped", "application/json", []string{`"\u003c"` + "\n"}, true, `"\u003c"` + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := unescape.HTML(func(*http.Request) bool { return tt.skip })(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", tt.contentType)
				for _, s := range tt.writes {
					if n, err := w.Write([]byte(s)); err != nil || n != len(s) {
						t.Errorf("Write = %d, %v; want %d", n, err, len(s))
					}
				}
			}))
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
			if got, _ := io.ReadAll(rec.Body); string(got) != tt.want {
				t.Errorf("body %s, want %s", got, tt.want)
			}
		})
	}
}
