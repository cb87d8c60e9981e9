package serve

import "time"

// Stat counts events and the time they took in all.
type Stat struct {
	Count uint64
	Total time.Duration
}

// BatchStat is the model calls of one batch size.
type BatchStat struct {
	Size  int
	Calls Stat
}

// Stats are one version's inference statistics since the registry learned of it,
// across reloads, in the terms of Triton's statistics extension: a request is one
// Predict or Infer call, an inference one item (row) of it, an execution one call of
// the model, which dynamic batching may share between requests.
type Stats struct {
	Name, Version string
	// LastInference is when the last request succeeded; zero: never.
	LastInference time.Time
	Inferences    uint64
	Executions    uint64
	// Success and Fail are requests, end to end (from routing to results).
	Success, Fail Stat
	// Queue is requests' wait in the version's dynamic batcher (only batched ones).
	Queue Stat
	// Input, Infer and Output are the pipeline's stages (preprocess, model,
	// postprocess) per request; a tensor call has the first and last only when the
	// version has steps for it to run (beyond to_tensor, top_k and label_map).
	Input, Infer, Output Stat
	// Batches are the model calls by batch size, smallest first.
	Batches []BatchStat
}
