package registry

import "github.com/inferd/inferd/internal/serve"

// The registry's sentinel errors are serve's, named here too: the same values, so
// errors.Is matches either name.
var (
	ErrModelNotFound   = serve.ErrModelNotFound
	ErrVersionNotFound = serve.ErrVersionNotFound
	ErrLoading         = serve.ErrLoading
	ErrUnavailable     = serve.ErrUnavailable
	ErrInvalidRule     = serve.ErrInvalidRule
	ErrReloadFailed    = serve.ErrReloadFailed
	ErrModelUnloaded   = serve.ErrModelUnloaded
)
