package backend

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/inferd/inferd/internal/pipeline"
)

// Backend is a model runtime.
type Backend interface {
	// Name is what model.yaml's backend field says to choose this runtime.
	Name() string
	// Check vets a version's settings when the version is discovered, before any file
	// but model.yaml is read, and fills in the runtime's defaults (the artifact's
	// name). A fault is a *FieldError naming the model.yaml field.
	Check(s *Settings) error
	// Open loads the version that s, as Check left it, describes. Any failure leaves
	// nothing open; a fault of the config is a *FieldError.
	Open(ctx context.Context, s Settings) (Model, error)
}

// Settings are what model.yaml says to a runtime about one version.
type Settings struct {
	// Dir is the version directory: the artifact is a file in it.
	Dir string
	// Artifact is the model file's name in Dir; "" when the config names none.
	Artifact string
	// MaxBatchSize caps the items of one runtime call; 0 means no cap.
	MaxBatchSize int
	// Delay is a simulated latency per call, for runtimes that take one.
	Delay time.Duration
	// Preprocess and Postprocess count the steps the config lists: a runtime whose
	// model takes raw JSON items has no tensors for steps to work on.
	Preprocess, Postprocess int
	// Read reads a file of Dir, as the repository allows it to be read: a regular
	// file inside the repository, under its size cap. nil: os.ReadFile.
	Read func(name string) ([]byte, error)
}

// ReadFile reads the file name of the version directory through s.Read.
func (s Settings) ReadFile(name string) ([]byte, error) {
	if s.Read == nil {
		return os.ReadFile(filepath.Join(s.Dir, name))
	}
	return s.Read(name)
}

// CheckArtifact is Check for a runtime that reads one model file and has no use for
// a delay (echo's alone, standing in for real work): it names the artifact artifact
// when the config names none.
func CheckArtifact(s *Settings, artifact string) error {
	if s.Delay != 0 {
		return Errorf("delay", "only backend echo takes a delay")
	}
	if s.Artifact == "" {
		s.Artifact = artifact
	}
	return nil
}

// ReadArtifact reads the artifact through s.Read for a runtime's Open: path is its
// path, for the runtime's errors. A missing file is a *FieldError of "artifact"; a
// refused one keeps ErrUnsafeFile, whose error names the file already.
func (s Settings) ReadArtifact(ctx context.Context) (path string, data []byte, err error) {
	path = filepath.Join(s.Dir, s.Artifact)
	data, err = s.ReadFile(s.Artifact)
	switch {
	case errors.Is(err, ErrUnsafeFile):
		return "", nil, err
	case errors.Is(err, os.ErrNotExist):
		return "", nil, Errorf("artifact", "%s does not exist", path)
	case err != nil:
		return "", nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := ctx.Err(); err != nil {
		return "", nil, err
	}
	return path, data, nil
}

// Model is a loaded version's runtime stage together with what it declares, which
// the repository builds the version's steps against.
type Model interface {
	pipeline.Model
	// Size is how many bytes of artifact the model read.
	Size() int64
	// Inputs and Outputs are the tensors the model declares, batch dimension first.
	// Both are empty for a model that takes and returns raw JSON items: such a model
	// takes no steps.
	Inputs() []pipeline.Tensor
	Outputs() []pipeline.Tensor
	// ItemInputs and ItemOutputs are the same without the batch dimension: what one
	// item must be and what it gets.
	ItemInputs() []pipeline.Tensor
	ItemOutputs() []pipeline.Tensor
}

// Platformed is a Model that names its kind and runtime for the Open Inference
// Protocol's metadata (platform) and Triton's configuration (backend); a model
// without it is ONNX Runtime's.
type Platformed interface {
	Platform() (platform, runtime string)
}
