package repository

import (
	"context"
	"errors"
	"path/filepath"

	"github.com/inferd/inferd/internal/backend"
	"github.com/inferd/inferd/internal/graph"
	"github.com/inferd/inferd/internal/pipeline"
	"github.com/inferd/inferd/internal/pipeline/step"
)

// loader builds one version's pipeline from its directory.
type loader struct {
	src *Source
	dir string
}

// Load reads model.yaml afresh, has the backend open the model and builds the steps
// against what the model declares. Any failure leaves nothing open.
func (l *loader) Load(ctx context.Context) (*pipeline.Pipeline, error) {
	file := filepath.Join(l.dir, ConfigFile)
	c, cfgBytes, err := l.src.readConfig(file)
	if err != nil {
		return nil, err
	}
	m, err := l.open(ctx, c, file)
	if err != nil {
		return nil, err
	}
	p := &pipeline.Pipeline{
		Model: m,
		Info: pipeline.Info{
			Description:   c.Description,
			ArtifactBytes: m.Size() + cfgBytes,
			Inputs:        m.Inputs(),
			Outputs:       m.Outputs(),
			MaxBatchSize:  c.MaxBatchSize,
		},
		Batching: c.batching(),
	}
	if pm, ok := m.(backend.Platformed); ok {
		p.Info.Platform, p.Info.Runtime = pm.Platform()
	}
	if len(m.ItemInputs()) == 0 {
		// A model of raw JSON items: its backend's Check refused steps.
		return p, nil
	}
	if p.Pre, _, err = step.BuildPre(c.Preprocess, m.ItemInputs()); err != nil {
		m.Close()
		return nil, inFile(file, err)
	}
	if p.Post, err = step.BuildPost(c.Postprocess, m.ItemOutputs()); err != nil {
		m.Close()
		return nil, inFile(file, err)
	}
	if err := tensorView(p, c, m); err != nil {
		m.Close()
		return nil, inFile(file, err)
	}
	return p, nil
}

// open opens the version's model stage: its backend's model, or its graph checked
// against the members as they serve now.
func (l *loader) open(ctx context.Context, c *Config, file string) (backend.Model, error) {
	if c.Graph != nil {
		return l.openGraph(c, file)
	}
	// readConfig found it: the config names a backend of the catalogue.
	b, _ := l.src.opts.Backends.Lookup(c.Backend)
	settings := c.settings(l.dir)
	settings.Read = func(name string) ([]byte, error) {
		return l.src.readFile(filepath.Join(l.dir, name), l.src.opts.MaxModelBytes)
	}
	m, err := b.Open(ctx, settings)
	if fe := (*backend.FieldError)(nil); errors.As(err, &fe) {
		return nil, inFile(file, err)
	}
	return m, err
}

// openGraph types the version's graph against its members; a fault names the field.
func (l *loader) openGraph(c *Config, file string) (backend.Model, error) {
	gs := l.src.opts.Graphs
	if gs == nil || gs.reg.Load() == nil {
		return nil, &ConfigError{File: file, Field: "graph", Msg: errNoRegistry.Error()}
	}
	g, err := graph.Check(c.Graph, gs)
	if err != nil {
		return nil, inFile(file, err)
	}
	ins := g.Inputs()
	m := &graphModel{g: g, call: gs, in: ins[0], ins: ins, outs: g.Outputs()}
	if obs := gs.Steps; obs != nil {
		model, version := filepath.Base(filepath.Dir(l.dir)), filepath.Base(l.dir)
		m.observe = func(e graph.Event) { obs.GraphStep(model, version, e.Step, e.Outcome, e.Took) }
	}
	return m, nil
}

// tensorView builds the steps of the version's tensor calls and the tensors those
// calls send and get, with the batch dimension of the model's own.
func tensorView(p *pipeline.Pipeline, c *Config, m backend.Model) error {
	pre, in, err := step.BuildTensorPre(c.Preprocess, m.ItemInputs())
	if err != nil {
		return err
	}
	post, outs, err := step.BuildTensorPost(c.Postprocess, m.ItemOutputs())
	if err != nil {
		return err
	}
	p.TensorPre, p.TensorPost = pre, post
	p.Info.TensorInputs = []pipeline.Tensor{batched(in, m.Inputs())}
	p.Info.TensorOutputs = make([]pipeline.Tensor, len(outs))
	for i, o := range outs {
		p.Info.TensorOutputs[i] = batched(o, m.Outputs())
	}
	return nil
}

// batched is t, one item's tensor, with the batch dimension of the model's tensor of
// its name first.
func batched(t pipeline.Tensor, model []pipeline.Tensor) pipeline.Tensor {
	batch := int64(-1)
	for _, mt := range model {
		if mt.Name == t.Name && len(mt.Shape) > 0 {
			batch = mt.Shape[0]
		}
	}
	t.Shape = append([]int64{batch}, t.Shape...)
	return t
}
