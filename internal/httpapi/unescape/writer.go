package unescape

import (
	"bytes"
	"net/http"
	"strings"

	"github.com/inferd/inferd/internal/jsonscan"
)

// HTML returns the middleware that rewrites the JSON answers of the handlers after
// it, but for the requests skip says write their answers unescaped already. The
// generated handlers write each JSON document in one Write (json.Encoder.Encode), so
// the first write, when it is a whole document, is rewritten; anything after it passes
// as it is.
func HTML(skip func(*http.Request) bool) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if skip(r) {
				next.ServeHTTP(w, r)
				return
			}
			next.ServeHTTP(&writer{ResponseWriter: w}, r)
		})
	}
}

type writer struct {
	http.ResponseWriter
	wrote bool
}

func (w *writer) Write(b []byte) (int, error) {
	first := !w.wrote
	w.wrote = true
	ct := w.Header().Get("Content-Type")
	if !first || !strings.HasPrefix(ct, "application/") || !strings.Contains(ct, "json") || !bytes.HasSuffix(b, []byte("\n")) || !bytes.Contains(b, []byte(`\u00`)) {
		return w.ResponseWriter.Write(b)
	}
	if _, err := w.ResponseWriter.Write(jsonscan.UnescapeHTML(b)); err != nil {
		return 0, err
	}
	return len(b), nil
}

func (w *writer) Unwrap() http.ResponseWriter { return w.ResponseWriter }
