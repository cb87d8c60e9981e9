package httpapi

import (
	"bytes"
	"net/http"
	"strings"
)

// plainJSON undoes encoding/json's HTML escaping (<, > and & as \u003c, \u003e,
// \u0026) in the answers of the generated handlers, whose encoder escapes and cannot
// be told not to. The escapes made a 1 MB echo of '<' a 6 MB answer. Those handlers
// write each JSON document in one Write (json.Encoder.Encode), so the first write,
// when it is a whole document, is rewritten; anything after it passes as it is. The
// predict operations write through writeJSON, which never escapes, and pass through.
func (s *Server) plainJSON(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if info := infoFrom(r.Context()); info != nil && info.body != nil {
			next.ServeHTTP(w, r)
			return
		}
		next.ServeHTTP(&unescapingWriter{ResponseWriter: w}, r)
	})
}

type unescapingWriter struct {
	http.ResponseWriter
	wrote bool
}

func (w *unescapingWriter) Write(b []byte) (int, error) {
	first := !w.wrote
	w.wrote = true
	ct := w.Header().Get("Content-Type")
	if !first || !strings.HasPrefix(ct, "application/") || !strings.Contains(ct, "json") || !bytes.HasSuffix(b, []byte("\n")) || !bytes.Contains(b, []byte(`\u00`)) {
		return w.ResponseWriter.Write(b)
	}
	if _, err := w.ResponseWriter.Write(unescapeHTML(b)); err != nil {
		return 0, err
	}
	return len(b), nil
}

func (w *unescapingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// unescapeHTML turns \u003c, \u003e and \u0026 in JSON text back into the characters
// they stand for; every other escape, \\ included, is copied whole, so a backslash
// the text holds is never read as the start of one.
func unescapeHTML(b []byte) []byte {
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c != '\\' || i+1 >= len(b) {
			out = append(out, c)
			continue
		}
		if b[i+1] == 'u' && i+5 < len(b) {
			switch string(b[i+2 : i+6]) {
			case "003c":
				out = append(out, '<')
				i += 5
				continue
			case "003e":
				out = append(out, '>')
				i += 5
				continue
			case "0026":
				out = append(out, '&')
				i += 5
				continue
			}
		}
		out = append(out, c, b[i+1])
		i++
	}
	return out
}
