package cli

import (
	"context"
	"errors"

	"github.com/inferd/inferd/internal/backend"
	"github.com/inferd/inferd/internal/backend/xgboost"
)

// offlineONNX stands in for the onnx backend when inferctl vets a model.yaml: that
// one links ONNX Runtime through cgo, and inferctl stays a plain Go binary. Its Check
// does what the runtime's does with a config (its default artifact, no delay); it
// opens nothing. The xgboost backend is pure Go, so inferctl checks with the real one.
type offlineONNX struct{}

// offlineBackends are the runtimes model init writes configs for, in the server's
// order.
var offlineBackends = backend.Catalogue{
	offlineONNX{},
	xgboost.Backend{},
}

func (offlineONNX) Name() string { return "onnx" }

func (offlineONNX) Check(s *backend.Settings) error {
	return backend.CheckArtifact(s, "model.onnx")
}

var errOffline = errors.New("inferctl checks model.yaml; the server opens the model")

func (offlineONNX) Open(context.Context, backend.Settings) (backend.Model, error) {
	return nil, errOffline
}
