package oipapi

import (
	"context"

	"github.com/inferd/inferd/gen/api"
	"github.com/inferd/inferd/internal/oip"
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

// oipConfig is a loaded version's configuration (oip.Service.ModelConfig).
func (h *Handlers) oipConfig(name, version string) (api.OIPModelConfig, error) {
	c, err := h.cfg.Service.ModelConfig(name, version)
	if err != nil {
		return api.OIPModelConfig{}, err
	}
	out := api.OIPModelConfig{Name: c.Name, Version: &c.Version, Platform: c.Platform, Backend: c.Backend, MaxBatchSize: c.MaxBatchSize,
		Input: configTensors(c.Input), Output: configTensors(c.Output)}
	if b := c.DynamicBatching; b != nil {
		out.DynamicBatching = &api.OIPDynamicBatching{MaxQueueDelayMicroseconds: b.MaxQueueDelayMicroseconds}
		if b.PreferredBatchSize != nil {
			out.DynamicBatching.PreferredBatchSize = &b.PreferredBatchSize
		}
	}
	return out, nil
}

func configTensors(ts []oip.ConfigTensor) []api.OIPModelConfigTensor {
	out := make([]api.OIPModelConfigTensor, len(ts))
	for i, t := range ts {
		out[i] = api.OIPModelConfigTensor{Name: t.Name, DataType: api.OIPModelConfigTensorDataType(t.DataType), Dims: t.Dims}
	}
	return out
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
	stats, err := h.cfg.Service.Statistics(name, version)
	if err != nil {
		return api.OIPStatistics{}, err
	}
	out := api.OIPStatistics{ModelStats: make([]api.OIPModelStatistics, len(stats))}
	for i, st := range stats {
		m := api.OIPModelStatistics{
			Name: st.Name, Version: st.Version, LastInference: st.LastInference,
			InferenceCount: st.InferenceCount, ExecutionCount: st.ExecutionCount,
			InferenceStats: api.OIPInferenceStats{
				Success: oipStat(st.Success), Fail: oipStat(st.Fail), Queue: oipStat(st.Queue),
				ComputeInput: oipStat(st.ComputeInput), ComputeInfer: oipStat(st.ComputeInfer), ComputeOutput: oipStat(st.ComputeOutput),
			},
			BatchStats: make([]api.OIPBatchStats, len(st.Batches)),
		}
		for j, b := range st.Batches {
			m.BatchStats[j] = api.OIPBatchStats{BatchSize: b.BatchSize, ComputeInfer: oipStat(b.ComputeInfer)}
		}
		out.ModelStats[i] = m
	}
	return out, nil
}

func oipStat(s oip.Stat) api.OIPStat { return api.OIPStat{Count: s.Count, Ns: s.Ns} }

// OipRepositoryIndex lists the model repository.
func (h *Handlers) OipRepositoryIndex(ctx context.Context, req api.OipRepositoryIndexRequestObject) (api.OipRepositoryIndexResponseObject, error) {
	readyOnly := req.Body != nil && req.Body.Ready != nil && *req.Body.Ready
	idx, err := h.cfg.Service.RepositoryIndex(ctx, readyOnly)
	if err != nil {
		return nil, err
	}
	return api.OipRepositoryIndex200JSONResponse(repositoryModels(idx)), nil
}

// OipRepositoryLoad loads what the repository holds of a model.
func (h *Handlers) OipRepositoryLoad(ctx context.Context, req api.OipRepositoryLoadRequestObject) (api.OipRepositoryLoadResponseObject, error) {
	idx, err := h.cfg.Service.LoadModel(ctx, req.ModelName)
	if err != nil {
		return nil, err
	}
	return api.OipRepositoryLoad200JSONResponse(repositoryModels(idx)), nil
}

// OipRepositoryUnload unloads a model, once its requests in flight have finished.
func (h *Handlers) OipRepositoryUnload(ctx context.Context, req api.OipRepositoryUnloadRequestObject) (api.OipRepositoryUnloadResponseObject, error) {
	idx, err := h.cfg.Service.UnloadModel(ctx, req.ModelName)
	if err != nil {
		return nil, err
	}
	return api.OipRepositoryUnload200JSONResponse(repositoryModels(idx)), nil
}

// repositoryModels writes the repository's index as /v2 answers it.
func repositoryModels(idx []oip.RepositoryModel) []api.OIPRepositoryModel {
	out := make([]api.OIPRepositoryModel, len(idx))
	for i := range idx {
		m := &idx[i]
		out[i] = api.OIPRepositoryModel{Name: m.Name, Version: &m.Version, State: api.OIPRepositoryModelState(m.State)}
		if m.Reason != "" {
			out[i].Reason = &m.Reason
		}
	}
	return out
}
