package serve

import "errors"

// Sentinel errors of serving models; wrapped errors say which model or version.
var (
	// ErrModelNotFound: no model has that name.
	ErrModelNotFound = errors.New("model not found")
	// ErrVersionNotFound: the model exists, the version does not.
	ErrVersionNotFound = errors.New("version not found")
	// ErrLoading: the version is still loading.
	ErrLoading = errors.New("model loading")
	// ErrUnavailable: the version failed to load and has no pipeline to serve with.
	ErrUnavailable = errors.New("model unavailable")
	// ErrInvalidRule: a routing rule is malformed or names a version that does not exist.
	ErrInvalidRule = errors.New("invalid routing rule")
	// ErrReloadFailed: a reload could not build the new pipeline; the old one still serves.
	ErrReloadFailed = errors.New("reload failed")
	// ErrModelUnloaded: a job accepted for the model did not run before an operator
	// unloaded it (UnloadModel waited UnloadTimeout for it).
	ErrModelUnloaded = errors.New("model unloaded")
)
