package repository

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/inferd/inferd/internal/backend"
	"github.com/inferd/inferd/internal/graph"
	"github.com/inferd/inferd/internal/pipeline"
	"github.com/inferd/inferd/internal/pipeline/step"
	"github.com/inferd/inferd/internal/registry"
	"go.yaml.in/yaml/v3"
)

// Config is a version's model.yaml. Every field may be left out; the zero value of
// each is the documented default.
type Config struct {
	// Description is shown in model metadata.
	Description string `yaml:"description"`
	// Backend names the runtime, one of the Catalogue the Source was given: onnx,
	// or echo, which returns its input and needs no artifact; "" means onnx.
	Backend string `yaml:"backend"`
	// Artifact is the model file's name in the version directory; "" leaves the
	// name to the backend (onnx: model.onnx).
	Artifact string `yaml:"artifact"`
	// MaxBatchSize caps the items of one runtime call; bigger batches run in chunks.
	// 0 means no cap.
	MaxBatchSize int `yaml:"max_batch_size"`
	// DynamicBatching, when present, coalesces concurrent requests into one model call
	// of at most MaxBatchSize items; absent means every request is its own call.
	DynamicBatching *DynamicBatching `yaml:"dynamic_batching"`
	// Delay is how long each call to an echo model takes: simulated latency for load
	// and queue tests. Only backend echo takes it; 0 means none.
	Delay time.Duration `yaml:"delay"`
	// Preprocess and Postprocess list steps, each a one-key mapping of the step's
	// name to its parameters ("- standardize: {mean: [...], std: [...]}"), or the
	// bare name of a step whose parameters all have defaults ("- softmax").
	Preprocess  stepList `yaml:"preprocess"`
	Postprocess stepList `yaml:"postprocess"`
	// Graph, when present, makes the version a model graph: its model stage is steps
	// calling other models (see package graph), in place of a backend and artifact.
	Graph *graph.Spec `yaml:"-"`
}

// DynamicBatching is model.yaml's dynamic_batching, Triton's semantics: a request that
// finds the model idle runs at once; requests that arrive while it is busy are gathered
// into the next call, which waits at most MaxQueueDelay for company while not full.
// MaxCalls is how many such calls may run at once, like Triton's instance count; 0
// means 1.
type DynamicBatching struct {
	MaxQueueDelay time.Duration `yaml:"max_queue_delay"`
	MaxCalls      int           `yaml:"max_calls"`
}

// batching is what the pipeline is told of dynamic batching.
func (c *Config) batching() pipeline.Batching {
	if c.DynamicBatching == nil {
		return pipeline.Batching{}
	}
	b := c.DynamicBatching
	return pipeline.Batching{Enabled: true, MaxSize: c.MaxBatchSize, MaxQueueDelay: b.MaxQueueDelay, MaxCalls: max(b.MaxCalls, 1)}
}

// stepList is decoded by hand (see parseSteps): its parameter types depend on the
// step names.
type stepList []step.Spec

// The names the files of a repository must have.
const (
	ConfigFile     = "model.yaml"
	RoutingFile    = "routing.yaml"
	DefaultBackend = "onnx"
)

// readConfig reads and checks a model.yaml as far as it can without the artifact.
func (s *Source) readConfig(file string) (*Config, int64, error) {
	data, err := s.readFile(file, maxConfigBytes)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, 0, &ConfigError{File: file, Msg: "missing: every version directory needs one"}
		}
		return nil, 0, err
	}
	c, err := parseConfig(data, s.opts.Backends)
	return c, int64(len(data)), inFile(file, err)
}

// ParseConfig parses and checks the model.yaml file holding data as the repository
// does when it discovers a version, before the artifact is read: its fields, its
// steps and their parameters, and the backend's own Check among backends. A fault is
// a *ConfigError naming file and field. `inferctl model init` vets what it writes
// with it.
func ParseConfig(file string, data []byte, backends backend.Catalogue) (*Config, error) {
	c, err := parseConfig(data, backends)
	if err != nil {
		return nil, inFile(file, err)
	}
	return c, nil
}

func parseConfig(data []byte, backends backend.Catalogue) (*Config, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s", strings.TrimPrefix(err.Error(), "yaml: "))
	}
	// The step lists come out of the node first: decodeStrict knows nothing of them.
	var pre, post, g *yaml.Node
	root := &doc
	if len(doc.Content) > 0 {
		root = doc.Content[0]
	}
	if root.Kind == yaml.MappingNode {
		rest := &yaml.Node{Kind: yaml.MappingNode, Tag: root.Tag}
		for i := 0; i < len(root.Content); i += 2 {
			switch root.Content[i].Value {
			case "preprocess":
				pre = root.Content[i+1]
			case "postprocess":
				post = root.Content[i+1]
			case "graph":
				g = root.Content[i+1]
			default:
				rest.Content = append(rest.Content, root.Content[i], root.Content[i+1])
			}
		}
		root = rest
	}
	c := &Config{}
	if len(doc.Content) > 0 {
		if err := decodeStrict(root, c, ""); err != nil {
			return nil, err
		}
	}
	var err error
	if c.Preprocess, err = parseSteps(pre, pipeline.StagePreprocess); err != nil {
		return nil, err
	}
	if c.Postprocess, err = parseSteps(post, pipeline.StagePostprocess); err != nil {
		return nil, err
	}
	if g != nil {
		if c.Graph, err = graph.Decode(g); err != nil {
			return nil, err
		}
		return c, c.checkGraph()
	}
	return c, c.check(backends)
}

// checkGraph refuses what only a version with an artifact takes: its members bring
// their own runtimes, batchers and caps.
func (c *Config) checkGraph() error {
	for _, f := range []struct {
		field string
		set   bool
	}{
		{"backend", c.Backend != ""},
		{"artifact", c.Artifact != ""},
		{"delay", c.Delay != 0},
		{"max_batch_size", c.MaxBatchSize != 0},
		{"dynamic_batching", c.DynamicBatching != nil},
	} {
		if f.set {
			return errorf(f.field, "a graph version takes none: its steps' models have their own; remove it, or remove graph")
		}
	}
	if len(c.Graph.Inputs) != 1 {
		return errorf("graph.inputs", "a served graph takes one input (a request's tensor, as every model here does), got %d", len(c.Graph.Inputs))
	}
	return nil
}

// Calls names the models a graph version's steps call, in their order, each once;
// none for a version with an artifact.
func (c *Config) Calls() []string {
	if c.Graph == nil {
		return nil
	}
	var out []string
	for _, s := range c.Graph.Steps {
		if !slices.Contains(out, s.Model) {
			out = append(out, s.Model)
		}
	}
	return out
}

func parseSteps(n *yaml.Node, stage pipeline.Stage) (stepList, error) {
	if n == nil || isNull(n) {
		return nil, nil
	}
	if n.Kind != yaml.SequenceNode {
		return nil, errorf(string(stage), "expected a list of steps, got %s", describe(n))
	}
	specs := make(stepList, len(n.Content))
	for i, item := range n.Content {
		at := fmt.Sprintf("%s[%d]", stage, i)
		var name string
		var params *yaml.Node
		switch {
		case item.Kind == yaml.ScalarNode && item.Tag == "!!str":
			name = item.Value
		case item.Kind == yaml.MappingNode && len(item.Content) == 2:
			name, params = item.Content[0].Value, item.Content[1]
		default:
			return nil, errorf(at, "expected a step: its name mapped to its parameters, like `- standardize: {mean: [...], std: [...]}`, got %s", describe(item))
		}
		def, err := step.Lookup(stage, name, at)
		if err != nil {
			return nil, err
		}
		p := def.Params()
		if params != nil {
			if err := decodeStrict(params, p, at+"."+name); err != nil {
				return nil, err
			}
		}
		specs[i] = step.Spec{Name: name, Params: p}
	}
	return specs, step.Check(stage, specs)
}

// check validates what needs no artifact: what every backend shares here, the
// rest in the backend's own Check.
func (c *Config) check(backends backend.Catalogue) error {
	if b := c.DynamicBatching; b != nil && b.MaxQueueDelay <= 0 {
		return errorf("dynamic_batching.max_queue_delay", "must be a positive duration such as 2ms, got %s", b.MaxQueueDelay)
	}
	if b := c.DynamicBatching; b != nil && b.MaxCalls < 0 {
		return errorf("dynamic_batching.max_calls", "must be 1 or more (0 or absent means 1), got %d", b.MaxCalls)
	}
	if c.Backend == "" {
		c.Backend = DefaultBackend
	}
	b, ok := backends.Lookup(c.Backend)
	if !ok {
		return errorf("backend", "unknown backend %q (backends: %s)", c.Backend, strings.Join(backends.Names(), ", "))
	}
	s := c.settings("")
	if err := b.Check(&s); err != nil {
		return err
	}
	c.Artifact, c.MaxBatchSize, c.Delay = s.Artifact, s.MaxBatchSize, s.Delay
	if c.Artifact != "" && (c.Artifact != filepath.Base(c.Artifact) || strings.HasPrefix(c.Artifact, ".")) {
		return errorf("artifact", "%q must be a file name in the version directory", c.Artifact)
	}
	if c.MaxBatchSize < 0 {
		return errorf("max_batch_size", "must be 0 (no cap) or more, got %d", c.MaxBatchSize)
	}
	return nil
}

// settings is what the backend is told of the version in dir.
func (c *Config) settings(dir string) backend.Settings {
	return backend.Settings{
		Dir:          dir,
		Artifact:     c.Artifact,
		MaxBatchSize: c.MaxBatchSize,
		Delay:        c.Delay,
		Preprocess:   len(c.Preprocess),
		Postprocess:  len(c.Postprocess),
	}
}

// readRule reads a model's routing.yaml; a model without one routes to its latest
// version.
func (s *Source) readRule(file string, versions []string) (registry.Rule, error) {
	data, err := s.readFile(file, maxConfigBytes)
	if os.IsNotExist(err) {
		return registry.Rule{}, nil
	}
	if err != nil {
		return registry.Rule{}, err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return registry.Rule{}, &ConfigError{File: file, Msg: strings.TrimPrefix(err.Error(), "yaml: ")}
	}
	var r registry.Rule
	if err := decodeStrict(&doc, &r, ""); err != nil {
		return registry.Rule{}, inFile(file, err)
	}
	if err := r.Validate(versions); err != nil {
		return registry.Rule{}, &ConfigError{File: file, Msg: err.Error()}
	}
	return r, nil
}
