package repository_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/inferd/inferd/internal/backend"
	"github.com/inferd/inferd/internal/backend/echo"
	"github.com/inferd/inferd/internal/repository"
)

// TestEchoBackend: backend echo needs no artifact and no ONNX Runtime (the catalogue
// here has none), and its delay holds each call, but gives way to a cancelled context.
func TestEchoBackend(t *testing.T) {
	dir := repo(t, map[string]string{"slow/v1/model.yaml": "description: echo with simulated latency\nbackend: echo\ndelay: 50ms\n"})
	spec, err := repository.New(repository.Options{Dir: dir, Backends: backend.Catalogue{echo.Backend{}}}).Model(context.Background(), "slow")
	if err != nil {
		t.Fatal(err)
	}
	if spec.Versions[0].Err != nil {
		t.Fatal(spec.Versions[0].Err)
	}
	p, err := spec.Versions[0].Loader.Load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if p.Info.Description != "echo with simulated latency" {
		t.Errorf("description = %q", p.Info.Description)
	}
	tests := []struct {
		name    string
		timeout time.Duration
		wantErr error
	}{
		{"waits", time.Second, nil},
		{"cancelled", 10 * time.Millisecond, context.DeadlineExceeded},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), tt.timeout)
			defer cancel()
			start := time.Now()
			out, err := p.Run(ctx, []json.RawMessage{json.RawMessage(`{"n":12345678901234567890}`)}, nil)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("error = %v, want %v", err, tt.wantErr)
			}
			if tt.wantErr != nil {
				return
			}
			if time.Since(start) < 50*time.Millisecond {
				t.Errorf("returned after %v, before the delay", time.Since(start))
			}
			if string(out[0]) != `{"n":12345678901234567890}` {
				t.Errorf("got %s", out[0])
			}
		})
	}
}
