package page

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/inferd/inferd/internal/problem"
)

// TestZeroPages: the zero value serves the documents, and refuses to mount the admin
// pages without a guard.
func TestZeroPages(t *testing.T) {
	r := chi.NewRouter()
	var p Pages
	if err := p.Docs(r, ""); err != nil {
		t.Fatal(err)
	}
	if err := p.Pprof(r, nil); err == nil {
		t.Error("the profiles were mounted without an admin guard")
	}
	if err := p.Queues(r, http.NotFoundHandler(), nil); err == nil {
		t.Error("the queue dashboard was mounted without an admin guard")
	}
	w := httptest.NewRecorder()
	r.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/openapi.yaml", nil))
	if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), "openapi:") {
		t.Errorf("/openapi.yaml: %d %.40q", w.Code, w.Body.String())
	}
	w = httptest.NewRecorder()
	r.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/docs/no-such-asset.js", nil))
	if w.Code != http.StatusNotFound {
		t.Errorf("an unknown asset: %d", w.Code)
	}
}

type control struct{ paused []string }

func (c *control) PauseQueue(name string) error {
	if name == "gone" {
		return errors.New("no queue gone")
	}
	c.paused = append(c.paused, name)
	return nil
}
func (c *control) ResumeQueue(string) error { return nil }

// TestQueues: pause goes to the control, a failure and the dashboard's text errors
// become problems, and another site's writes are refused.
func TestQueues(t *testing.T) {
	type refusal struct {
		status int
		code   string
	}
	var got []refusal
	p := Pages{
		Admin: func(next http.Handler) http.Handler { return next },
		Problem: func(w http.ResponseWriter, _ *http.Request, status int, code, _ string) {
			got = append(got, refusal{status, code})
			w.WriteHeader(status)
		},
		Error: func(w http.ResponseWriter, _ *http.Request, err error) {
			got = append(got, refusal{http.StatusInternalServerError, "error"})
			w.Header().Set("Content-Type", "application/problem+json")
			w.WriteHeader(http.StatusInternalServerError)
		},
	}
	ui := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "task not found", http.StatusInternalServerError)
	})
	c := &control{}
	r := chi.NewRouter()
	if err := p.Queues(r, ui, c); err != nil {
		t.Fatal(err)
	}
	serve := func(method, path string, header http.Header) int {
		req := httptest.NewRequest(method, path, nil)
		for k, v := range header {
			req.Header[k] = v
		}
		w := httptest.NewRecorder()
		r.ServeHTTP(w, req)
		return w.Code
	}
	if code := serve(http.MethodPost, QueuesPath+"/api/queues/default:pause", nil); code != http.StatusNoContent || len(c.paused) != 1 {
		t.Errorf("pause: %d, paused %v", code, c.paused)
	}
	serve(http.MethodPost, QueuesPath+"/api/queues/gone:pause", nil)
	serve(http.MethodGet, QueuesPath+"/api/tasks/x", nil)
	serve(http.MethodPost, QueuesPath+"/api/queues/default:pause", http.Header{"Sec-Fetch-Site": {"cross-site"}})
	want := []refusal{{500, "error"}, {404, problem.CodeNotFound}, {403, problem.CodeForbidden}}
	if len(got) != len(want) {
		t.Fatalf("refusals %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("refusal %d: %v, want %v", i, got[i], want[i])
		}
	}
}
