package oip

import (
	"context"
	"errors"

	"github.com/inferd/inferd/internal/build"
	"github.com/inferd/inferd/internal/pipeline"
	"github.com/inferd/inferd/internal/problem"
	"github.com/inferd/inferd/internal/serve"
	"github.com/inferd/inferd/internal/tensor"
)

// Extensions are the protocol extensions the server speaks, which its metadata lists.
var Extensions = []string{"binary_tensor_data", "model_configuration", "statistics", "model_repository"}

// Service answers the protocol's calls about the server and its models (metadata,
// readiness and Triton's extensions) over the registry, in the protocol's terms and no transport's: oipapi
// writes its answers as the JSON of /v2, grpcapi as the service's messages. An
// unknown model or version is refused as named in the call's path (problem.InPath).
type Service struct {
	Registry Models
	// Ready is the server's readiness: false while loading, draining or degraded.
	Ready func(ctx context.Context) (bool, error)
	// LoadErrorText words a version's load error for a client (paths redacted), in the
	// repository's index.
	LoadErrorText func(error) string
}

// ServerMetadata names the server, its version and its extensions.
type ServerMetadata struct {
	Name, Version string
	Extensions    []string
}

// ModelMetadata describes a version: the tensors its infer calls send and get.
type ModelMetadata struct {
	Name     string
	Versions []string // every version of the model, never nil
	Platform string
	// Inputs and Outputs are never nil, nor is a tensor's Shape.
	Inputs, Outputs []TensorMetadata
}

// TensorMetadata is a tensor's name, datatype (the protocol's spelling) and shape (-1:
// any size).
type TensorMetadata struct {
	Name     string
	Datatype string
	Shape    []int64
}

// ModelReady is whether a version can serve.
type ModelReady struct {
	Name    string
	Version string // the version asked for, or the one the model's rule chooses
	Ready   bool
}

// ServerMetadata names the server, its version and the extensions it speaks.
func (s *Service) ServerMetadata() ServerMetadata {
	return ServerMetadata{Name: "inferd", Version: build.Version, Extensions: Extensions}
}

// ServerReady is the server's readiness.
func (s *Service) ServerReady(ctx context.Context) (bool, error) { return s.Ready(ctx) }

// ModelMetadata describes a loaded version (version "": the one the model's rule
// chooses): the tensors its infer calls send and get (the model's as the version's
// steps leave them), known once it has loaded, so a loading or failed one is refused
// as its infer calls are.
func (s *Service) ModelMetadata(name, version string) (ModelMetadata, error) {
	ver, err := s.Registry.ResolveTensors(name, version)
	if err != nil {
		return ModelMetadata{}, problem.InPath(err)
	}
	versions, err := s.Registry.Versions(name)
	if err != nil {
		return ModelMetadata{}, problem.InPath(err)
	}
	// A model without tensors takes any (echo); one with them is ONNX Runtime's unless
	// its backend names its platform (xgboost).
	out := ModelMetadata{Name: name, Versions: []string{}, Platform: "echo", Inputs: []TensorMetadata{}, Outputs: []TensorMetadata{}}
	for _, v := range versions {
		out.Versions = append(out.Versions, v.Version)
		if v.Version != ver {
			continue
		}
		out.Inputs, out.Outputs = tensorMetadata(v.Info.TensorInputs), tensorMetadata(v.Info.TensorOutputs)
		if len(v.Info.Inputs) > 0 {
			out.Platform = "onnxruntime_onnx"
		}
		if v.Info.Platform != "" {
			out.Platform = v.Info.Platform
		}
	}
	return out, nil
}

func tensorMetadata(ts []pipeline.Tensor) []TensorMetadata {
	out := make([]TensorMetadata, len(ts))
	for i, t := range ts {
		out[i] = TensorMetadata{Name: t.Name, Datatype: Datatype(tensor.DType(t.DType)), Shape: t.Shape}
		if out[i].Shape == nil {
			out[i].Shape = []int64{}
		}
	}
	return out
}

// ModelReady says whether a version (version "": the one the model's rule chooses)
// can serve: a loading or failed one cannot, an unknown one is refused.
func (s *Service) ModelReady(name, version string) (ModelReady, error) {
	ver, err := s.Registry.RouteTensors(name, version)
	if err != nil {
		return ModelReady{}, problem.InPath(err)
	}
	_, err = s.Registry.Resolve(name, ver)
	switch {
	case err == nil:
		return ModelReady{Name: name, Version: ver, Ready: true}, nil
	case errors.Is(err, serve.ErrLoading) || errors.Is(err, serve.ErrUnavailable):
		return ModelReady{Name: name, Version: ver, Ready: false}, nil
	}
	return ModelReady{}, problem.InPath(err)
}
