package grpcapi

import (
	"context"
	"fmt"
	"slices"

	pb "github.com/inferd/inferd/gen/inference"
	"github.com/inferd/inferd/internal/oip"
)

// Triton's extensions, answered by the service /v2 answers them with (internal/oip's
// Service) and carried in Triton's messages.

// ModelConfig is the configuration of a version, or of the one the model's rule
// chooses.
func (s *Server) ModelConfig(_ context.Context, req *pb.ModelConfigRequest) (*pb.ModelConfigResponse, error) {
	if err := named(req.Name, "name"); err != nil {
		return nil, err
	}
	c, err := s.oip.ModelConfig(req.Name, req.Version)
	if err != nil {
		return nil, err
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
		for _, n := range b.PreferredBatchSize {
			out.DynamicBatching.PreferredBatchSize = append(out.DynamicBatching.PreferredBatchSize, int32(n))
		}
	}
	return &pb.ModelConfigResponse{Config: out}, nil
}

func dataType(t string) pb.DataType { return pb.DataType(pb.DataType_value[t]) }

// ModelStatistics reports every version of every model (no name), every version of a
// model (no version), or one version.
func (s *Server) ModelStatistics(_ context.Context, req *pb.ModelStatisticsRequest) (*pb.ModelStatisticsResponse, error) {
	if req.Name == "" && req.Version != "" {
		return nil, invalid("version is %q but name is empty: name the model whose version to report", req.Version)
	}
	stats, err := s.oip.Statistics(req.Name, req.Version)
	if err != nil {
		return nil, err
	}
	out := &pb.ModelStatisticsResponse{}
	for _, m := range stats {
		ms := &pb.ModelStatistics{
			Name: m.Name, Version: m.Version, LastInference: uint64(m.LastInference),
			InferenceCount: uint64(m.InferenceCount), ExecutionCount: uint64(m.ExecutionCount),
			InferenceStats: &pb.InferStatistics{
				Success: duration(m.Success), Fail: duration(m.Fail), Queue: duration(m.Queue),
				ComputeInput: duration(m.ComputeInput), ComputeInfer: duration(m.ComputeInfer), ComputeOutput: duration(m.ComputeOutput),
			},
		}
		for _, b := range m.Batches {
			// A batch size's statistics time its calls alone (compute_infer): its input and
			// output times are zero, as REST's show them.
			ms.BatchStats = append(ms.BatchStats, &pb.InferBatchStatistics{BatchSize: uint64(b.BatchSize),
				ComputeInput: duration(oip.Stat{}), ComputeInfer: duration(b.ComputeInfer), ComputeOutput: duration(oip.Stat{})})
		}
		out.ModelStats = append(out.ModelStats, ms)
	}
	return out, nil
}

func duration(s oip.Stat) *pb.StatisticDuration {
	return &pb.StatisticDuration{Count: uint64(s.Count), Ns: uint64(s.Ns)}
}

// RepositoryIndex lists every version in the repository, or the ready ones.
func (s *Server) RepositoryIndex(ctx context.Context, req *pb.RepositoryIndexRequest) (*pb.RepositoryIndexResponse, error) {
	idx, err := s.oip.RepositoryIndex(ctx, req.Ready)
	if err != nil {
		return nil, err
	}
	return &pb.RepositoryIndexResponse{Models: index(idx)}, nil
}

func index(models []oip.RepositoryModel) []*pb.RepositoryIndexResponse_ModelIndex {
	out := make([]*pb.RepositoryIndexResponse_ModelIndex, len(models))
	for i, m := range models {
		out[i] = &pb.RepositoryIndexResponse_ModelIndex{Name: m.Name, Version: m.Version, State: m.State, Reason: m.Reason}
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
	if _, err := s.oip.LoadModel(ctx, req.ModelName); err != nil {
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
	if _, err := s.oip.UnloadModel(ctx, req.ModelName); err != nil {
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
