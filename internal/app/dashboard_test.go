package app_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/inferd/inferd/internal/apitest"
	"github.com/inferd/inferd/internal/app"
	"github.com/inferd/inferd/internal/redistest"
)

// dashboardDo sends req to the queue dashboard. Its pages and API are outside
// openapi.yaml, so only its errors are validated: they must be problems.
func dashboardDo(t *testing.T, req *http.Request) *apitest.Response {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	out := &apitest.Response{Status: resp.StatusCode, Header: resp.Header, Body: body}
	if out.Status >= 400 {
		if err := apitest.Validate(req, nil, out); err != nil {
			t.Errorf("%s %s -> %d: %v", req.Method, req.URL.Path, out.Status, err)
		}
	}
	return out
}

// TestQueueDashboardWrites (see docs/design.md#the-queue-dashboards-writes): the dashboard's writes are
// refused when a browser sends them from another site (Sec-Fetch-Site, or Origin when
// the browser sends no Sec-Fetch-Site), whatever credentials it attaches; its own
// pages and non-browser clients may write; and its errors are problems.
func TestQueueDashboardWrites(t *testing.T) {
	rs := redistest.Start(t)
	s := startApp(t, map[string]string{"QUEUE_URL": rs.URL(), "MODELS_DIR": t.TempDir()}, true)
	c := s.c
	// A job puts the queue in Redis, so that it can be paused.
	if resp := c.Post("/predict/async", "dev-key", `{"model":"echo","data":1}`); resp.Status != http.StatusOK {
		t.Fatalf("submit: %d %s", resp.Status, resp.Body)
	}
	pause := func(headers map[string]string) *http.Request {
		req := c.NewRequest(http.MethodPost, "/admin/queues/api/queues/inferd:pause", "", nil)
		req.SetBasicAuth("any", "admin-key") // cached by the browser
		for k, v := range headers {
			req.Header.Set(k, v)
		}
		return req
	}
	paused := func() bool {
		resp := dashboardDo(t, c.NewRequest(http.MethodGet, "/admin/queues/api/queues/inferd", "admin-key", nil))
		var q struct {
			Current struct {
				Paused bool `json:"paused"`
			} `json:"current"`
		}
		if err := json.Unmarshal(resp.Body, &q); err != nil {
			t.Fatalf("the queue's state: %d %s", resp.Status, resp.Body)
		}
		return q.Current.Paused
	}
	for _, tc := range []struct {
		name    string
		headers map[string]string
		status  int
	}{
		{"cross-site, by Sec-Fetch-Site", map[string]string{"Sec-Fetch-Site": "cross-site", "Origin": "https://evil.example"}, http.StatusForbidden},
		{"same site but another origin", map[string]string{"Sec-Fetch-Site": "same-site"}, http.StatusForbidden},
		{"cross-site, by Origin alone", map[string]string{"Origin": "https://evil.example"}, http.StatusForbidden},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := dashboardDo(t, pause(tc.headers))
			if resp.Status != tc.status || resp.Problem(t).Code != "forbidden" {
				t.Fatalf("%d %s, want %d forbidden", resp.Status, resp.Body, tc.status)
			}
			if paused() {
				t.Fatal("the queue was paused")
			}
		})
	}
	t.Run("from the dashboard's own page", func(t *testing.T) {
		if resp := dashboardDo(t, pause(map[string]string{"Sec-Fetch-Site": "same-origin"})); resp.Status/100 != 2 || !paused() {
			t.Fatalf("%d %s; paused %v", resp.Status, resp.Body, paused())
		}
	})
	t.Run("without a browser", func(t *testing.T) {
		req := c.NewRequest(http.MethodPost, "/admin/queues/api/queues/inferd:resume", "admin-key", nil)
		if resp := dashboardDo(t, req); resp.Status/100 != 2 || paused() {
			t.Fatalf("%d %s; paused %v", resp.Status, resp.Body, paused())
		}
	})
	t.Run("errors are problems", func(t *testing.T) {
		resp := dashboardDo(t, c.NewRequest(http.MethodGet, "/admin/queues/api/queues/no-such-queue", "admin-key", nil))
		if resp.Status != http.StatusNotFound || resp.Problem(t).Code != "not_found" {
			t.Fatalf("%d %s, want a 404 problem", resp.Status, resp.Body)
		}
	})
}

// TestQueueDashboardControls: pausing a paused queue and resuming a running one are
// idempotent 204s (asynqmon answered both 500 and logged an ERROR), and a queue that
// does not exist is a 404 problem (asynqmon paused it without a word).
func TestQueueDashboardControls(t *testing.T) {
	rs := redistest.Start(t)
	log := &apitest.Log{}
	s := startAppWith(t, map[string]string{"QUEUE_URL": rs.URL(), "MODELS_DIR": t.TempDir()}, true,
		app.Options{Logger: slog.New(slog.NewTextHandler(log, nil))})
	c := s.c
	paused := func() bool {
		resp := dashboardDo(t, c.NewRequest(http.MethodGet, "/admin/queues/api/queues/inferd", "admin-key", nil))
		var q struct {
			Current struct {
				Paused bool `json:"paused"`
			} `json:"current"`
		}
		if err := json.Unmarshal(resp.Body, &q); err != nil {
			t.Fatalf("the queue's state: %d %s", resp.Status, resp.Body)
		}
		return q.Current.Paused
	}
	for _, step := range []struct {
		action, queue string
		status        int
		paused        bool
	}{
		{"pause", "inferd", http.StatusNoContent, true},
		{"pause", "inferd", http.StatusNoContent, true},
		{"resume", "inferd", http.StatusNoContent, false},
		{"resume", "inferd", http.StatusNoContent, false},
		{"pause", "no-such-queue", http.StatusNotFound, false},
		{"resume", "no-such-queue", http.StatusNotFound, false},
	} {
		resp := dashboardDo(t, c.NewRequest(http.MethodPost, "/admin/queues/api/queues/"+step.queue+":"+step.action, "admin-key", nil))
		if resp.Status != step.status {
			t.Fatalf("%s %s: %d %s, want %d", step.action, step.queue, resp.Status, resp.Body, step.status)
		}
		if step.status == http.StatusNotFound && resp.Problem(t).Code != "not_found" {
			t.Errorf("%s %s: %s, want a not_found problem", step.action, step.queue, resp.Body)
		}
		if paused() != step.paused {
			t.Errorf("after %s %s: paused %v, want %v", step.action, step.queue, paused(), step.paused)
		}
	}
	resp := dashboardDo(t, c.NewRequest(http.MethodGet, "/admin/queues/api/queues", "admin-key", nil))
	if strings.Contains(string(resp.Body), "no-such-queue") {
		t.Errorf("a queue was made by pausing a name: %s", resp.Body)
	}
	if strings.Contains(log.String(), "level=ERROR") {
		t.Errorf("the server logged an error:\n%s", log.String())
	}
}
