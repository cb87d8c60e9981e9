package serve

import (
	"time"

	"github.com/inferd/inferd/internal/pipeline"
)

// Entry describes one version for listings.
type Entry struct {
	Name, Version string
	Status        Status
	Err           error
	LoadedAt      time.Time
	LoadDuration  time.Duration
	Memory        Memory
	Info          pipeline.Info
	// Batching is how the loaded pipeline coalesces requests: zero when it does not
	// (its config asks for none, or DYNAMIC_BATCHING=false).
	Batching pipeline.Batching
	// Pre and Post describe the steps of the loaded pipeline.
	Pre, Post []pipeline.StepInfo

	// AtStart: the version's load at start failed (Status failed) and nothing has
	// loaded it since; strict readiness waits for it.
	AtStart bool
	// LoadErr is why the version's last load failed while a pipeline loaded before
	// still serves it (Status ready), or why its source refused newer content of it
	// (the registry's VersionSpec.Refused).
	LoadErr error
	// Unloading: an unload of the model is waiting for the jobs accepted for it.
	Unloading bool
	// Provenance is what the source verified of the version's files, as it last
	// described them (the registry's VersionSpec.Provenance).
	Provenance Provenance
}

// Memory is what a pipeline's load was measured to take.
type Memory struct {
	// Bytes is the estimate: max(RSSDelta, ArtifactBytes + HeapDelta).
	Bytes         int64
	ArtifactBytes int64
	RSSDelta      int64
	HeapDelta     int64
	// Exclusive is false when another load overlapped this one, so the deltas may
	// include its growth.
	Exclusive  bool
	MeasuredAt time.Time
}

// Provenance is what a source verified of a version's files.
type Provenance struct {
	// Digests is the hex SHA-256 of the version's SHA256SUMS; "" without one.
	Digests string
	// Signer is the fingerprint of the key whose signature over SHA256SUMS verified;
	// "" when no signature was checked.
	Signer string
}
