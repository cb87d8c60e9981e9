package httpapi

import (
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// TestWriteJSONSendsAtOnceWhenQuiet: on a nearly idle server an answer is flushed as
// soon as it is written, after the request gives back its place under
// MAX_CONCURRENT_PER_KEY; otherwise it is left for net/http to send, and the place
// for the gate to give back. A place is given back once.
func TestWriteJSONSendsAtOnceWhenQuiet(t *testing.T) {
	for _, early := range []bool{true, false} {
		name := "busy"
		if early {
			name = "quiet"
		}
		t.Run(name, func(t *testing.T) {
			held := new(atomic.Int64)
			held.Store(1)
			rec := httptest.NewRecorder()
			sw := &statusWriter{ResponseWriter: rec, held: held, early: early}
			if err := writeJSON(sw, map[string]int{"a": 1}, nil, 1<<20); err != nil {
				t.Fatal(err)
			}
			if rec.Flushed != early {
				t.Errorf("flushed %v, want %v", rec.Flushed, early)
			}
			if want := map[bool]int64{true: 0, false: 1}[early]; held.Load() != want {
				t.Errorf("%d in progress after writeJSON, want %d", held.Load(), want)
			}
			sw.giveBack() // the gate's, when the handler returns
			sw.giveBack()
			if held.Load() != 0 {
				t.Errorf("%d in progress after the request, want 0", held.Load())
			}
			if rec.Code != 200 || strings.TrimSpace(rec.Body.String()) != `{"a":1}` {
				t.Errorf("answer %d %q", rec.Code, rec.Body)
			}
		})
	}
}
