package client_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/inferd/inferd/client"
)

// TestErrorWithoutProblem covers answers that do not come from inferd itself, such as
// a load balancer's error page: still an *Error, with what can be read from them.
// (inferd's own problems are read in internal/e2etest, against the real server.)
func TestErrorWithoutProblem(t *testing.T) {
	tests := []struct {
		name        string
		contentType string
		body        string
		header      http.Header
		status      int
		want        client.Error
	}{
		{"html page", "text/html", "<html>bad gateway</html>", http.Header{"X-Request-Id": {"lb-1"}}, http.StatusBadGateway,
			client.Error{Status: 502, Title: "Bad Gateway", Detail: "<html>bad gateway</html>", RequestID: "lb-1"}},
		{"retry after seconds", "text/plain", "busy", http.Header{"Retry-After": {"3"}}, http.StatusServiceUnavailable,
			client.Error{Status: 503, Title: "Service Unavailable", Detail: "busy", RetryAfter: 3 * time.Second}},
		{"json that is not a problem", "application/json", `{"error":"nope"}`, nil, http.StatusTeapot,
			client.Error{Status: 418, Title: "I'm a teapot", Detail: `{"error":"nope"}`}},
		{"long body", "text/plain", strings.Repeat("x", 500), nil, http.StatusInternalServerError,
			client.Error{Status: 500, Title: "Internal Server Error", Detail: strings.Repeat("x", 200) + "..."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				for k, v := range tt.header {
					w.Header()[k] = v
				}
				w.Header().Set("Content-Type", tt.contentType)
				w.WriteHeader(tt.status)
				_, _ = w.Write([]byte(tt.body))
			}))
			defer srv.Close()
			c, err := client.New(srv.URL)
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.Health(context.Background())
			var e *client.Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v (%T), want *client.Error", err, err)
			}
			got := *e
			got.Instance = ""
			if got.Status != tt.want.Status || got.Title != tt.want.Title || got.Detail != tt.want.Detail ||
				got.RequestID != tt.want.RequestID || got.RetryAfter != tt.want.RetryAfter || got.Code != "" {
				t.Errorf("got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestNewRefusesBadURLs(t *testing.T) {
	for _, u := range []string{"", "localhost:8080", "ftp://host", "http://", "http://a b"} {
		t.Run(u, func(t *testing.T) {
			if _, err := client.New(u); err == nil {
				t.Errorf("New(%q) accepted it", u)
			}
		})
	}
}
