package oip

import (
	"context"
	"fmt"
	"time"

	"github.com/inferd/inferd/internal/pipeline"
	"github.com/inferd/inferd/internal/problem"
	"github.com/inferd/inferd/internal/serve"
	"github.com/inferd/inferd/internal/tensor"
)

// Triton's extensions of the protocol that its clients and tools call: model
// configuration, statistics and the model repository, each over what the registry
// already knows and measures.

// ModelConfig is a version's configuration as Triton writes it.
type ModelConfig struct {
	Name, Version     string
	Platform, Backend string
	MaxBatchSize      int64
	Input, Output     []ConfigTensor // never nil
	DynamicBatching   *DynamicBatching
}

// ConfigTensor is a tensor of a configuration: its dimensions are without the batch
// dimension when the model batches (MaxBatchSize above 0).
type ConfigTensor struct {
	Name string
	// DataType is the configuration's name of its element type: TYPE_FP32, TYPE_STRING.
	DataType string
	Dims     []int64 // never nil
}

// DynamicBatching is the dynamic batcher's configuration.
type DynamicBatching struct {
	MaxQueueDelayMicroseconds int64
	PreferredBatchSize        []int64 // nil: none
}

// ModelStatistics are a version's counts and times.
type ModelStatistics struct {
	Name, Version                  string
	LastInference                  int64 // Unix milliseconds; 0: never
	InferenceCount, ExecutionCount int64
	Success, Fail, Queue           Stat
	ComputeInput, ComputeInfer     Stat
	ComputeOutput                  Stat
	Batches                        []BatchStats // never nil
}

// Stat is a count of events and their total time.
type Stat struct{ Count, Ns int64 }

// BatchStats are the model's calls with a batch of one size.
type BatchStats struct {
	BatchSize    int64
	ComputeInfer Stat
}

// The states of a repository's version.
const (
	StateReady       = "READY"
	StateLoading     = "LOADING"
	StateUnloading   = "UNLOADING"
	StateUnavailable = "UNAVAILABLE"
)

// RepositoryModel is a version of the repository's index.
type RepositoryModel struct {
	Name, Version string
	State         string // one of the States
	Reason        string // "" for none
}

// ModelConfig is a loaded version's configuration (version "": the one the model's
// rule chooses): the tensors its infer calls send and get, as the metadata has them.
func (s *Service) ModelConfig(name, version string) (ModelConfig, error) {
	ver, err := s.Registry.ResolveTensors(name, version)
	if err != nil {
		return ModelConfig{}, problem.InPath(err)
	}
	versions, err := s.Registry.Versions(name)
	if err != nil {
		return ModelConfig{}, problem.InPath(err)
	}
	var e serve.Entry
	for _, v := range versions {
		if v.Version == ver {
			e = v
		}
	}
	out := ModelConfig{Name: name, Version: ver, Platform: "echo", Backend: "echo", MaxBatchSize: int64(e.Info.MaxBatchSize)}
	if len(e.Info.Inputs) > 0 {
		out.Platform, out.Backend = "onnxruntime_onnx", "onnxruntime"
	}
	if e.Info.Platform != "" {
		out.Platform, out.Backend = e.Info.Platform, e.Info.Runtime
	}
	batched := out.MaxBatchSize > 0
	out.Input, out.Output = configTensors(e.Info.TensorInputs, batched), configTensors(e.Info.TensorOutputs, batched)
	if b := e.Batching; b.Enabled {
		out.DynamicBatching = &DynamicBatching{MaxQueueDelayMicroseconds: b.MaxQueueDelay.Microseconds()}
		if b.MaxSize > 0 {
			out.DynamicBatching.PreferredBatchSize = []int64{int64(b.MaxSize)}
		}
	}
	return out, nil
}

func configTensors(ts []pipeline.Tensor, batched bool) []ConfigTensor {
	out := make([]ConfigTensor, len(ts))
	for i, t := range ts {
		dims := t.Shape
		if batched && len(dims) > 0 {
			dims = dims[1:]
		}
		out[i] = ConfigTensor{Name: t.Name, DataType: configType(tensor.DType(t.DType)), Dims: append([]int64{}, dims...)}
	}
	return out
}

// configType is the configuration's name of an element type: TYPE_ and the protocol's
// datatype, but for BYTES, which Triton's configuration calls TYPE_STRING.
func configType(d tensor.DType) string {
	if d == tensor.Bytes {
		return "TYPE_STRING"
	}
	return "TYPE_" + Datatype(d)
}

// Statistics reports every version of every model (name ""), every version of a
// model (version ""), or one version.
func (s *Service) Statistics(name, version string) ([]ModelStatistics, error) {
	stats, err := s.Registry.Stats(name, version)
	if err != nil {
		return nil, problem.InPath(err)
	}
	out := make([]ModelStatistics, len(stats))
	for i, st := range stats {
		m := ModelStatistics{
			Name: st.Name, Version: st.Version,
			InferenceCount: int64(st.Inferences), ExecutionCount: int64(st.Executions),
			Success: stat(st.Success), Fail: stat(st.Fail), Queue: stat(st.Queue),
			ComputeInput: stat(st.Input), ComputeInfer: stat(st.Infer), ComputeOutput: stat(st.Output),
			Batches: make([]BatchStats, len(st.Batches)),
		}
		if !st.LastInference.IsZero() {
			m.LastInference = st.LastInference.UnixMilli()
		}
		for j, b := range st.Batches {
			m.Batches[j] = BatchStats{BatchSize: int64(b.Size), ComputeInfer: stat(b.Calls)}
		}
		out[i] = m
	}
	return out, nil
}

func stat(s serve.Stat) Stat { return Stat{Count: int64(s.Count), Ns: s.Total.Nanoseconds()} }

// RepositoryIndex lists every version in the repository, or the ready ones.
func (s *Service) RepositoryIndex(ctx context.Context, readyOnly bool) ([]RepositoryModel, error) {
	idx, err := s.index(ctx, "")
	if err != nil {
		return nil, err
	}
	out := idx[:0]
	for _, m := range idx {
		if !readyOnly || m.State == StateReady {
			out = append(out, m)
		}
	}
	return out, nil
}

// LoadModel loads what the repository holds of a model, and lists its versions.
func (s *Service) LoadModel(ctx context.Context, name string) ([]RepositoryModel, error) {
	if err := s.Registry.LoadModel(ctx, name); err != nil {
		return nil, problem.InPath(err)
	}
	return s.index(ctx, name)
}

// UnloadModel unloads a model, once its requests in flight have finished, and lists
// its versions.
func (s *Service) UnloadModel(ctx context.Context, name string) ([]RepositoryModel, error) {
	if err := s.Registry.UnloadModel(ctx, name); err != nil {
		return nil, problem.InPath(err)
	}
	return s.index(ctx, name)
}

// index is the repository's index, of one model when name is set; never nil.
func (s *Service) index(ctx context.Context, name string) ([]RepositoryModel, error) {
	entries, err := s.Registry.Index(ctx)
	if err != nil {
		return nil, err
	}
	out := []RepositoryModel{}
	for _, e := range entries {
		if name != "" && e.Name != name {
			continue
		}
		m := RepositoryModel{Name: e.Name, Version: e.Version}
		switch {
		case e.Unloading:
			m.State, m.Reason = StateUnloading, "an unload is waiting for the jobs accepted for the model (UNLOAD_TIMEOUT); it takes no new requests"
		case e.Status == serve.StatusReady:
			m.State = StateReady
			if e.LoadErr != nil {
				m.Reason = fmt.Sprintf("the pipeline loaded at %s still serves; the last reload failed: %s", e.LoadedAt.UTC().Format(time.RFC3339), s.LoadErrorText(e.LoadErr))
			}
		case e.Status == serve.StatusLoading:
			m.State = StateLoading
		case e.Status == serve.StatusFailed:
			m.State, m.Reason = StateUnavailable, s.LoadErrorText(e.Err)
		default:
			m.State, m.Reason = StateUnavailable, fmt.Sprintf("not loaded; POST /v2/repository/models/%s/load loads it", e.Name)
			if e.Err != nil {
				m.Reason = "not loaded, and it cannot load: " + s.LoadErrorText(e.Err)
			}
		}
		out = append(out, m)
	}
	return out, nil
}
