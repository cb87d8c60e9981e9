package serve

// Status is the load state of one version.
type Status string

// The load states of a version.
const (
	StatusLoading Status = "loading"
	StatusReady   Status = "ready"
	StatusFailed  Status = "failed"
	// StatusNotLoaded is the state the repository's index gives a version its source
	// holds but the registry does not: added on disk since start, or unloaded.
	StatusNotLoaded Status = "not_loaded"
)
