package oipapi

import (
	"context"
	"fmt"
	"time"

	"github.com/inferd/inferd/gen/api"
	"github.com/inferd/inferd/internal/oip"
	"github.com/inferd/inferd/internal/pipeline"
	"github.com/inferd/inferd/internal/problem"
	"github.com/inferd/inferd/internal/registry"
	"github.com/inferd/inferd/internal/tensor"
)

// Triton's extensions of the protocol that its clients and tools call: model
// configuration, statistics and the model repository, each over what the registry
// already knows and measures.

// OipModelConfig describes the configuration of the version tensor calls go to.
func (h *Handlers) OipModelConfig(_ context.Context, req api.OipModelConfigRequestObject) (api.OipModelConfigResponseObject, error) {
	c, err := h.oipConfig(req.ModelName, "")
	if err != nil {
		return nil, err
	}
	return api.OipModelConfig200JSONResponse(c), nil
}

// OipModelVersionConfig describes one version's configuration.
func (h *Handlers) OipModelVersionConfig(_ context.Context, req api.OipModelVersionConfigRequestObject) (api.OipModelVersionConfigResponseObject, error) {
	c, err := h.oipConfig(req.ModelName, req.ModelVersion)
	if err != nil {
		return nil, err
	}
	return api.OipModelVersionConfig200JSONResponse(c), nil
}

// oipConfig is a loaded version's configuration as Triton writes it: the tensors its
// infer calls send and get, as the metadata has them, their dimensions without the
// batch dimension when max_batch_size is above 0.
func (h *Handlers) oipConfig(name, version string) (api.OIPModelConfig, error) {
	ver, err := h.cfg.Registry.ResolveTensors(name, version)
	if err != nil {
		return api.OIPModelConfig{}, problem.InPath(err)
	}
	m, err := h.cfg.Registry.Describe(name)
	if err != nil {
		return api.OIPModelConfig{}, problem.InPath(err)
	}
	var e registry.Entry
	for _, v := range m.Versions {
		if v.Version == ver {
			e = v
		}
	}
	out := api.OIPModelConfig{Name: name, Version: &ver, Platform: "echo", Backend: "echo", MaxBatchSize: int64(e.Info.MaxBatchSize)}
	if len(e.Info.Inputs) > 0 {
		out.Platform, out.Backend = "onnxruntime_onnx", "onnxruntime"
	}
	if e.Info.Platform != "" {
		out.Platform, out.Backend = e.Info.Platform, e.Info.Runtime
	}
	batched := out.MaxBatchSize > 0
	out.Input, out.Output = configTensors(e.Info.TensorInputs, batched), configTensors(e.Info.TensorOutputs, batched)
	if b := e.Batching; b.Enabled {
		out.DynamicBatching = &api.OIPDynamicBatching{MaxQueueDelayMicroseconds: b.MaxQueueDelay.Microseconds()}
		if b.MaxSize > 0 {
			out.DynamicBatching.PreferredBatchSize = &[]int64{int64(b.MaxSize)}
		}
	}
	return out, nil
}

func configTensors(ts []pipeline.Tensor, batched bool) []api.OIPModelConfigTensor {
	out := make([]api.OIPModelConfigTensor, len(ts))
	for i, t := range ts {
		dims := t.Shape
		if batched && len(dims) > 0 {
			dims = dims[1:]
		}
		out[i] = api.OIPModelConfigTensor{Name: t.Name, DataType: tritonType(tensor.DType(t.DType)), Dims: append([]int64{}, dims...)}
	}
	return out
}

// tritonType is the configuration's name of an element type: TYPE_ and the protocol's
// datatype, but for BYTES, which Triton's configuration calls TYPE_STRING.
func tritonType(d tensor.DType) api.OIPModelConfigTensorDataType {
	if d == tensor.Bytes {
		return api.TYPESTRING
	}
	return api.OIPModelConfigTensorDataType("TYPE_" + oip.Datatype(d))
}

// OipStatistics reports every version of every model.
func (h *Handlers) OipStatistics(context.Context, api.OipStatisticsRequestObject) (api.OipStatisticsResponseObject, error) {
	st, err := h.oipStats("", "")
	if err != nil {
		return nil, err
	}
	return api.OipStatistics200JSONResponse(st), nil
}

// OipModelStatistics reports every version of one model.
func (h *Handlers) OipModelStatistics(_ context.Context, req api.OipModelStatisticsRequestObject) (api.OipModelStatisticsResponseObject, error) {
	st, err := h.oipStats(req.ModelName, "")
	if err != nil {
		return nil, err
	}
	return api.OipModelStatistics200JSONResponse(st), nil
}

// OipModelVersionStatistics reports one version.
func (h *Handlers) OipModelVersionStatistics(_ context.Context, req api.OipModelVersionStatisticsRequestObject) (api.OipModelVersionStatisticsResponseObject, error) {
	st, err := h.oipStats(req.ModelName, req.ModelVersion)
	if err != nil {
		return nil, err
	}
	return api.OipModelVersionStatistics200JSONResponse(st), nil
}

func (h *Handlers) oipStats(name, version string) (api.OIPStatistics, error) {
	stats, err := h.cfg.Registry.Stats(name, version)
	if err != nil {
		return api.OIPStatistics{}, problem.InPath(err)
	}
	out := api.OIPStatistics{ModelStats: make([]api.OIPModelStatistics, len(stats))}
	for i, st := range stats {
		m := api.OIPModelStatistics{
			Name: st.Name, Version: st.Version,
			InferenceCount: int64(st.Inferences), ExecutionCount: int64(st.Executions),
			InferenceStats: api.OIPInferenceStats{
				Success: oipStat(st.Success), Fail: oipStat(st.Fail), Queue: oipStat(st.Queue),
				ComputeInput: oipStat(st.Input), ComputeInfer: oipStat(st.Infer), ComputeOutput: oipStat(st.Output),
			},
			BatchStats: make([]api.OIPBatchStats, len(st.Batches)),
		}
		if !st.LastInference.IsZero() {
			m.LastInference = st.LastInference.UnixMilli()
		}
		for j, b := range st.Batches {
			m.BatchStats[j] = api.OIPBatchStats{BatchSize: int64(b.Size), ComputeInfer: oipStat(b.Calls)}
		}
		out.ModelStats[i] = m
	}
	return out, nil
}

func oipStat(s registry.Stat) api.OIPStat {
	return api.OIPStat{Count: int64(s.Count), Ns: s.Total.Nanoseconds()}
}

// OipRepositoryIndex lists the model repository.
func (h *Handlers) OipRepositoryIndex(ctx context.Context, req api.OipRepositoryIndexRequestObject) (api.OipRepositoryIndexResponseObject, error) {
	readyOnly := req.Body != nil && req.Body.Ready != nil && *req.Body.Ready
	idx, err := h.oipIndex(ctx, "")
	if err != nil {
		return nil, err
	}
	out := idx[:0]
	for _, m := range idx {
		if !readyOnly || m.State == api.READY {
			out = append(out, m)
		}
	}
	return api.OipRepositoryIndex200JSONResponse(out), nil
}

// OipRepositoryLoad loads what the repository holds of a model.
func (h *Handlers) OipRepositoryLoad(ctx context.Context, req api.OipRepositoryLoadRequestObject) (api.OipRepositoryLoadResponseObject, error) {
	if err := h.cfg.Registry.LoadModel(ctx, req.ModelName); err != nil {
		return nil, problem.InPath(err)
	}
	idx, err := h.oipIndex(ctx, req.ModelName)
	if err != nil {
		return nil, err
	}
	return api.OipRepositoryLoad200JSONResponse(idx), nil
}

// OipRepositoryUnload unloads a model, once its requests in flight have finished.
func (h *Handlers) OipRepositoryUnload(ctx context.Context, req api.OipRepositoryUnloadRequestObject) (api.OipRepositoryUnloadResponseObject, error) {
	if err := h.cfg.Registry.UnloadModel(ctx, req.ModelName); err != nil {
		return nil, problem.InPath(err)
	}
	idx, err := h.oipIndex(ctx, req.ModelName)
	if err != nil {
		return nil, err
	}
	return api.OipRepositoryUnload200JSONResponse(idx), nil
}

// oipIndex is the repository's index, of one model when name is set.
func (h *Handlers) oipIndex(ctx context.Context, name string) ([]api.OIPRepositoryModel, error) {
	entries, err := h.cfg.Registry.Index(ctx)
	if err != nil {
		return nil, err
	}
	out := []api.OIPRepositoryModel{}
	for _, e := range entries {
		if name != "" && e.Name != name {
			continue
		}
		m := api.OIPRepositoryModel{Name: e.Name, Version: &e.Version}
		var reason string
		switch {
		case e.Unloading:
			m.State, reason = api.UNLOADING, "an unload is waiting for the jobs accepted for the model (UNLOAD_TIMEOUT); it takes no new requests"
		case e.Status == registry.StatusReady:
			m.State = api.READY
			if e.LoadErr != nil {
				reason = fmt.Sprintf("the pipeline loaded at %s still serves; the last reload failed: %s", e.LoadedAt.UTC().Format(time.RFC3339), h.cfg.LoadErrorText(e.LoadErr))
			}
		case e.Status == registry.StatusLoading:
			m.State = api.LOADING
		case e.Status == registry.StatusFailed:
			m.State, reason = api.UNAVAILABLE, h.cfg.LoadErrorText(e.Err)
		default:
			m.State, reason = api.UNAVAILABLE, fmt.Sprintf("not loaded; POST /v2/repository/models/%s/load loads it", e.Name)
			if e.Err != nil {
				reason = "not loaded, and it cannot load: " + h.cfg.LoadErrorText(e.Err)
			}
		}
		if reason != "" {
			m.Reason = &reason
		}
		out = append(out, m)
	}
	return out, nil
}
