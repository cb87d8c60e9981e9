package daemon

import (
	"context"

	"github.com/inferd/inferd/internal/backend/echo"
	"github.com/inferd/inferd/internal/pipeline"
	"github.com/inferd/inferd/internal/registry"
)

// builtins is the models every server has, which need no files: the echo model in
// its built-in versions.
func builtins() registry.Fixed {
	spec := registry.ModelSpec{Name: "echo"}
	for _, v := range echo.Versions {
		spec.Versions = append(spec.Versions, registry.VersionSpec{
			Version: v,
			Loader:  registry.LoaderFunc(func(context.Context) (*pipeline.Pipeline, error) { return echo.New(v), nil }),
		})
	}
	return registry.Fixed{spec}
}

// names are the models' names: for the built-ins, the ones the model repository may
// not use, so there is one list of them.
func names(models registry.Fixed) []string {
	out := make([]string, len(models))
	for i, m := range models {
		out[i] = m.Name
	}
	return out
}
