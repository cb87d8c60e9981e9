package xgboost

import (
	"context"
	"fmt"

	"github.com/inferd/inferd/internal/backend"
)

// DefaultArtifact is the model file of a version whose model.yaml names none.
const DefaultArtifact = "model.json"

// Backend is the backend xgboost.
type Backend struct{}

// Name is "xgboost".
func (Backend) Name() string { return "xgboost" }

// Check names the artifact model.json when the config names none; a delay is for
// echo, which has no real work to take time.
func (Backend) Check(s *backend.Settings) error {
	return backend.CheckArtifact(s, DefaultArtifact)
}

// Open reads the artifact, as the repository allows (s.Read), and builds its
// evaluator.
func (Backend) Open(ctx context.Context, s backend.Settings) (backend.Model, error) {
	artifact, data, err := s.ReadArtifact(ctx)
	if err != nil {
		return nil, err
	}
	m, err := Open(artifact, data)
	if err != nil {
		return nil, err
	}
	return m, nil
}

// Open builds the model from an XGBoost model file's bytes (JSON or UBJSON); name
// is the file's path, for errors.
func Open(name string, data []byte) (*Model, error) {
	m, err := open(name, data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return m, nil
}
