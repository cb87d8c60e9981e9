package repository

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/inferd/inferd/internal/backend/onnx"
	"github.com/inferd/inferd/internal/pipeline"
	"github.com/inferd/inferd/internal/pipeline/step"
)

// ErrNoRuntime: a version needs a runtime the server was started without.
var ErrNoRuntime = errors.New("no runtime for the backend")

// loader builds one version's pipeline from its directory.
type loader struct {
	src *Source
	dir string
}

// Load reads model.yaml and the artifact afresh, opens the model and builds the steps
// against what the model declares. Any failure leaves nothing open.
func (l *loader) Load(ctx context.Context) (*pipeline.Pipeline, error) {
	file := filepath.Join(l.dir, ConfigFile)
	c, cfgBytes, err := readConfig(file)
	if err != nil {
		return nil, err
	}
	if c.Backend == backendEcho {
		return echoPipeline(c, cfgBytes), nil
	}
	artifact := filepath.Join(l.dir, c.Artifact)
	if _, err := os.Stat(artifact); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, &ConfigError{File: file, Field: "artifact", Msg: fmt.Sprintf("%s does not exist", artifact)}
		}
		return nil, fmt.Errorf("%s: %w", artifact, err)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	rt := l.src.opts.ONNX
	if rt == nil {
		return nil, fmt.Errorf("%w: %s: backend onnx needs ONNX Runtime, which this process was not given", ErrNoRuntime, file)
	}
	m, err := rt.Open(artifact, onnx.ModelOptions{MaxBatchSize: c.MaxBatchSize})
	if err != nil {
		return nil, err
	}
	pre, _, err := step.BuildPre(c.Preprocess, m.ItemInputs())
	if err != nil {
		m.Close()
		return nil, inFile(file, err)
	}
	post, err := step.BuildPost(c.Postprocess, m.ItemOutputs())
	if err != nil {
		m.Close()
		return nil, inFile(file, err)
	}
	return &pipeline.Pipeline{
		Pre:   pre,
		Model: m,
		Post:  post,
		Info: pipeline.Info{
			Description:   c.Description,
			ArtifactBytes: m.Size() + cfgBytes,
			Inputs:        m.Inputs(),
			Outputs:       m.Outputs(),
		},
		Batching: c.batching(),
	}, nil
}
