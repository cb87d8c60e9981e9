package grpcapi

import (
	"context"
	"fmt"
	"slices"

	"github.com/inferd/inferd/gen/api"
	pb "github.com/inferd/inferd/gen/inference"
)

// Triton's extensions, answered by the REST handlers and carried in Triton's messages.

// ModelConfig is the configuration of a version, or of the one the model's rule
// chooses.
func (s *Server) ModelConfig(ctx context.Context, req *pb.ModelConfigRequest) (*pb.ModelConfigResponse, error) {
	if err := named(req.Name, "name"); err != nil {
		return nil, err
	}
	var c api.OIPModelConfig
	if req.Version == "" {
		resp, err := s.rest.OipModelConfig(ctx, api.OipModelConfigRequestObject{ModelName: req.Name})
		if err != nil {
			return nil, err
		}
		c = api.OIPModelConfig(resp.(api.OipModelConfig200JSONResponse))
	} else {
		resp, err := s.rest.OipModelVersionConfig(ctx, api.OipModelVersionConfigRequestObject{ModelName: req.Name, ModelVersion: req.Version})
		if err != nil {
			return nil, err
		}
		c = api.OIPModelConfig(resp.(api.OipModelVersionConfig200JSONResponse))
	}
	out := &pb.ModelConfig{Name: c.Name, Platform: c.Platform, Backend: c.Backend, MaxBatchSize: int32(c.MaxBatchSize)}
	for _, t := range c.Input {
		out.Input = append(out.Input, &pb.ModelInput{Name: t.Name, DataType: dataType(t.DataType), Dims: t.Dims})
	}
	for _, t := range c.Output {
		out.Output = append(out.Output, &pb.ModelOutput{Name: t.Name, DataType: dataType(t.DataType), Dims: t.Dims})
	}
	if b := c.DynamicBatching; b != nil {
		out.DynamicBatching = &pb.ModelDynamicBatching{MaxQueueDelayMicroseconds: uint64(b.MaxQueueDelayMicroseconds)}
		if b.PreferredBatchSize != nil {
			for _, n := range *b.PreferredBatchSize {
				out.DynamicBatching.PreferredBatchSize = append(out.DynamicBatching.PreferredBatchSize, int32(n))
			}
		}
	}
	return &pb.ModelConfigResponse{Config: out}, nil
}

func dataType(t api.OIPModelConfigTensorDataType) pb.DataType {
	return pb.DataType(pb.DataType_value[string(t)])
}

// ModelStatistics reports every version of every model (no name), every version of a
// model (no version), or one version.
func (s *Server) ModelStatistics(ctx context.Context, req *pb.ModelStatisticsRequest) (*pb.ModelStatisticsResponse, error) {
	var st api.OIPStatistics
	switch {
	case req.Name == "" && req.Version != "":
		return nil, invalid("version is %q but name is empty: name the model whose version to report", req.Version)
	case req.Name == "":
		resp, err := s.rest.OipStatistics(ctx, api.OipStatisticsRequestObject{})
		if err != nil {
			return nil, err
		}
		st = api.OIPStatistics(resp.(api.OipStatistics200JSONResponse))
	case req.Version == "":
		resp, err := s.rest.OipModelStatistics(ctx, api.OipModelStatisticsRequestObject{ModelName: req.Name})
		if err != nil {
			return nil, err
		}
		st = api.OIPStatistics(resp.(api.OipModelStatistics200JSONResponse))
	default:
		resp, err := s.rest.OipModelVersionStatistics(ctx, api.OipModelVersionStatisticsRequestObject{ModelName: req.Name, ModelVersion: req.Version})
		if err != nil {
			return nil, err
		}
		st = api.OIPStatistics(resp.(api.OipModelVersionStatistics200JSONResponse))
	}
	out := &pb.ModelStatisticsResponse{}
	for _, m := range st.ModelStats {
		is := m.InferenceStats
		ms := &pb.ModelStatistics{
			Name: m.Name, Version: m.Version, LastInference: uint64(m.LastInference),
			InferenceCount: uint64(m.InferenceCount), ExecutionCount: uint64(m.ExecutionCount),
			InferenceStats: &pb.InferStatistics{
				Success: duration(is.Success), Fail: duration(is.Fail), Queue: duration(is.Queue),
				ComputeInput: duration(is.ComputeInput), ComputeInfer: duration(is.ComputeInfer), ComputeOutput: duration(is.ComputeOutput),
			},
		}
		for _, b := range m.BatchStats {
			ms.BatchStats = append(ms.BatchStats, &pb.InferBatchStatistics{BatchSize: uint64(b.BatchSize),
				ComputeInput: duration(b.ComputeInput), ComputeInfer: duration(b.ComputeInfer), ComputeOutput: duration(b.ComputeOutput)})
		}
		out.ModelStats = append(out.ModelStats, ms)
	}
	return out, nil
}

func duration(s api.OIPStat) *pb.StatisticDuration {
	return &pb.StatisticDuration{Count: uint64(s.Count), Ns: uint64(s.Ns)}
}

// RepositoryIndex lists every version in the repository, or the ready ones.
func (s *Server) RepositoryIndex(ctx context.Context, req *pb.RepositoryIndexRequest) (*pb.RepositoryIndexResponse, error) {
	resp, err := s.rest.OipRepositoryIndex(ctx, api.OipRepositoryIndexRequestObject{Body: &api.OIPRepositoryIndexRequest{Ready: &req.Ready}})
	if err != nil {
		return nil, err
	}
	return &pb.RepositoryIndexResponse{Models: index(resp.(api.OipRepositoryIndex200JSONResponse))}, nil
}

func index(models []api.OIPRepositoryModel) []*pb.RepositoryIndexResponse_ModelIndex {
	out := make([]*pb.RepositoryIndexResponse_ModelIndex, len(models))
	for i, m := range models {
		out[i] = &pb.RepositoryIndexResponse_ModelIndex{Name: m.Name, State: string(m.State)}
		if m.Version != nil {
			out[i].Version = *m.Version
		}
		if m.Reason != nil {
			out[i].Reason = *m.Reason
		}
	}
	return out
}

// RepositoryModelLoad makes the registry match what the repository holds of a model,
// as POST /v2/repository/models/{name}/load does; it takes no parameters.
func (s *Server) RepositoryModelLoad(ctx context.Context, req *pb.RepositoryModelLoadRequest) (*pb.RepositoryModelLoadResponse, error) {
	if err := named(req.ModelName, "model_name"); err != nil {
		return nil, err
	}
	for _, name := range sortedKeys(req.Parameters) {
		return nil, invalid("parameter %q: inferd loads a model as its repository holds it and takes no load parameters (Triton's config and file: are not supported); send none", name)
	}
	if _, err := s.rest.OipRepositoryLoad(ctx, api.OipRepositoryLoadRequestObject{ModelName: req.ModelName}); err != nil {
		return nil, err
	}
	return &pb.RepositoryModelLoadResponse{}, nil
}

// RepositoryModelUnload unloads a model once its calls in flight have finished. Of
// the parameters it takes unload_dependents (inferd's models have none).
func (s *Server) RepositoryModelUnload(ctx context.Context, req *pb.RepositoryModelUnloadRequest) (*pb.RepositoryModelUnloadResponse, error) {
	if err := named(req.ModelName, "model_name"); err != nil {
		return nil, err
	}
	for _, name := range sortedKeys(req.Parameters) {
		if _, ok := req.Parameters[name].GetParameterChoice().(*pb.ModelRepositoryParameter_BoolParam); name != "unload_dependents" || !ok {
			return nil, invalid("parameter %q: unload takes only unload_dependents, a bool_param", name)
		}
	}
	if _, err := s.rest.OipRepositoryUnload(ctx, api.OipRepositoryUnloadRequestObject{ModelName: req.ModelName}); err != nil {
		return nil, err
	}
	return &pb.RepositoryModelUnloadResponse{}, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// named refuses an empty model name, which REST's paths cannot send.
func named(name, field string) error {
	if name == "" {
		return invalid("%s is empty: name the model", field)
	}
	return nil
}

func invalid(format string, args ...any) error { return badRequest(fmt.Sprintf(format, args...)) }
