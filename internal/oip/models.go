package oip

import (
	"context"

	"github.com/inferd/inferd/internal/serve"
)

// Models is what the Service needs of the registry, declared here so that the
// protocol stays free of it: *registry.Registry implements it, and a test could answer
// with less.
type Models interface {
	// Versions are a model's versions, in natural order.
	Versions(name string) ([]serve.Entry, error)
	// Index is the repository's index: every version held and every one its sources
	// hold beside them.
	Index(ctx context.Context) ([]serve.Entry, error)
	// Stats are the statistics of every version of every model (name ""), every
	// version of a model (version ""), or one version.
	Stats(name, version string) ([]serve.Stats, error)
	// Resolve is the version a call runs on (the one it names, else the one the
	// model's rule chooses), refused with serve.ErrLoading or serve.ErrUnavailable when
	// it has no pipeline to serve with.
	Resolve(name, version string) (string, error)
	// ResolveTensors is Resolve for a tensor-level call, whose routing keeps to one
	// tensor signature.
	ResolveTensors(name, version string) (string, error)
	// RouteTensors is the version a tensor-level call goes to, loaded or not.
	RouteTensors(name, version string) (string, error)
	LoadModel(ctx context.Context, name string) error
	UnloadModel(ctx context.Context, name string) error
}
