package cli

import (
	"context"
	"errors"

	"github.com/inferd/inferd/internal/backend"
)

// offlineBackend stands in for a server runtime when inferctl vets a model.yaml: the
// runtimes need cgo (ONNX Runtime) or are the server's alone, and inferctl stays a
// plain Go binary. Its Check does what the runtime's does with a config (its default
// artifact, no delay); it opens nothing.
type offlineBackend struct {
	name, artifact string
}

// offlineBackends are the runtimes model init writes configs for, in the server's
// order.
var offlineBackends = backend.Catalogue{
	offlineBackend{"onnx", "model.onnx"},
	offlineBackend{"xgboost", "model.json"},
}

func (b offlineBackend) Name() string { return b.name }

func (b offlineBackend) Check(s *backend.Settings) error {
	if s.Delay != 0 {
		return backend.Errorf("delay", "only backend echo takes a delay")
	}
	if s.Artifact == "" {
		s.Artifact = b.artifact
	}
	return nil
}

var errOffline = errors.New("inferctl checks model.yaml; the server opens the model")

func (offlineBackend) Open(context.Context, backend.Settings) (backend.Model, error) {
	return nil, errOffline
}
