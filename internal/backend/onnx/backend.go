package onnx

import (
	"context"

	"github.com/inferd/inferd/internal/backend"
)

// DefaultArtifact is the model file of a version whose model.yaml names none.
const DefaultArtifact = "model.onnx"

// Backend is the backend onnx: each version one session of the Runtime.
type Backend struct {
	rt *Runtime
}

// NewBackend returns the backend that opens models in rt.
func NewBackend(rt *Runtime) Backend { return Backend{rt: rt} }

// Name is "onnx".
func (Backend) Name() string { return "onnx" }

// Check names the artifact model.onnx when the config names none; a delay is for
// echo, which has no real work to take time.
func (Backend) Check(s *backend.Settings) error {
	return backend.CheckArtifact(s, DefaultArtifact)
}

// Open reads the artifact afresh, as the repository allows (s.Read), and creates its
// session from the bytes read.
func (b Backend) Open(ctx context.Context, s backend.Settings) (backend.Model, error) {
	artifact, data, err := s.ReadArtifact(ctx)
	if err != nil {
		return nil, err
	}
	m, err := b.rt.OpenBytes(artifact, data, ModelOptions{MaxBatchSize: s.MaxBatchSize})
	if err != nil {
		return nil, err
	}
	return m, nil
}
