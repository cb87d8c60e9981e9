package e2etest

import (
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/inferd/inferd/client"
)

// TestProblems reads each kind of refusal a client meets as a *client.Error.
func TestProblems(t *testing.T) {
	tg := start(t)
	tests := []struct {
		name   string
		call   func(*testing.T) error
		status int
		code   string
		detail string // a part of the detail, when the README or contract shows it
	}{
		{"no key", func(t *testing.T) error { _, err := tg.anon.Models(ctx(t)); return err },
			http.StatusUnauthorized, client.CodeUnauthorized, "X-API-Key"},
		{"unknown key", func(t *testing.T) error {
			_, err := tg.wrong.Predict(ctx(t), client.PredictRequest{Model: "echo", Data: 1})
			return err
		},
			http.StatusUnauthorized, client.CodeUnauthorized, "X-API-Key"},
		{"key without the scope", func(t *testing.T) error { _, err := tg.dev.Memory(ctx(t)); return err },
			http.StatusForbidden, client.CodeForbidden, "admin"},
		{"reload needs admin", func(t *testing.T) error { _, err := tg.dev.Reload(ctx(t), "echo", "v1"); return err },
			http.StatusForbidden, client.CodeForbidden, "admin"},
		{"unknown model", func(t *testing.T) error {
			_, err := tg.dev.Predict(ctx(t), client.PredictRequest{Model: "nope", Data: 1})
			return err
		},
			http.StatusBadRequest, client.CodeModelNotFound, `"nope"`},
		{"unknown version", func(t *testing.T) error {
			_, err := tg.dev.PredictBatch(ctx(t), client.BatchRequest{Model: "echo", Version: "v9", Items: []any{1}})
			return err
		}, http.StatusBadRequest, client.CodeVersionNotFound, "v9"},
		{"input the model rejects", func(t *testing.T) error {
			_, err := tg.dev.Predict(ctx(t), client.PredictRequest{Model: "iris", Version: "v1", Data: []float64{5.1, 3.5, 1.4}})
			return err
		}, http.StatusBadRequest, client.CodeInvalidInput, "data: expected 4 numbers, got 3"},
		{"empty batch", func(t *testing.T) error {
			_, err := tg.dev.PredictBatch(ctx(t), client.BatchRequest{Model: "echo", Items: []any{}})
			return err
		}, http.StatusBadRequest, client.CodeInvalidRequest, "items"},
		{"async unknown model", func(t *testing.T) error {
			_, err := tg.dev.Submit(ctx(t), client.PredictRequest{Model: "nope", Data: 1})
			return err
		},
			http.StatusBadRequest, client.CodeModelNotFound, `"nope"`},
		{"unknown job", func(t *testing.T) error {
			_, err := tg.dev.Job(ctx(t), "0b6f8a52-3c4d-4f6e-9a1b-2c3d4e5f6a7b")
			return err
		},
			http.StatusNotFound, client.CodeJobNotFound, "0b6f8a52-3c4d-4f6e-9a1b-2c3d4e5f6a7b"},
		{"unknown model version in a path", func(t *testing.T) error { _, err := tg.dev.Model(ctx(t), "iris", "v9"); return err },
			http.StatusNotFound, client.CodeVersionNotFound, "v9"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := wantProblem(t, tt.call(t), tt.status, tt.code)
			if !contains(e.Detail, tt.detail) {
				t.Errorf("detail %q lacks %q", e.Detail, tt.detail)
			}
		})
	}
}

// TestRetryAfter reads a 429's Retry-After into Error.RetryAfter. It needs a server
// whose rate limit it sets, so it always starts its own.
func TestRetryAfter(t *testing.T) {
	if os.Getenv("INFERD_E2E_URL") != "" {
		t.Skip("INFERD_E2E_URL is set: this test needs a server with a rate limit of its own")
	}
	tg := start(t, "RATE_LIMIT_RPS=0.2", "RATE_LIMIT_BURST=1")
	req := client.PredictRequest{Model: "echo", Data: 1}
	if _, err := tg.dev.Predict(ctx(t), req); err != nil {
		t.Fatal(err)
	}
	_, err := tg.dev.Predict(ctx(t), req)
	e := wantProblem(t, err, http.StatusTooManyRequests, client.CodeRateLimited)
	if e.RetryAfter < time.Second {
		t.Errorf("RetryAfter %v, want at least 1 s", e.RetryAfter)
	}
}
