package echo

import (
	"context"

	"github.com/inferd/inferd/internal/backend"
)

// Backend is the backend echo: a repository's model that returns its input, with an
// optional delay per call.
type Backend struct{}

// Name is "echo".
func (Backend) Name() string { return "echo" }

// Check accepts a delay and nothing that needs a model: no artifact, no steps.
func (Backend) Check(s *backend.Settings) error {
	switch {
	case s.Artifact != "":
		return backend.Errorf("artifact", "backend echo reads no artifact")
	case s.Preprocess > 0:
		return backend.Errorf("preprocess", "backend echo takes no steps")
	case s.Postprocess > 0:
		return backend.Errorf("postprocess", "backend echo takes no steps")
	case s.Delay < 0:
		return backend.Errorf("delay", "must not be negative, got %s", s.Delay)
	}
	return nil
}

// Open returns the echo model with the configured delay.
func (Backend) Open(_ context.Context, s backend.Settings) (backend.Model, error) {
	return Model{Delay: s.Delay}, nil
}
