package registry

import (
	"context"

	"github.com/inferd/inferd/internal/pipeline"
	"github.com/inferd/inferd/internal/serve"
)

// Loader builds the pipeline of one model version. It is called at start and again on
// every reload, so it must read its configuration and artifacts afresh each time.
type Loader interface {
	Load(ctx context.Context) (*pipeline.Pipeline, error)
}

// LoaderFunc adapts a function to Loader.
type LoaderFunc func(ctx context.Context) (*pipeline.Pipeline, error)

// Load calls f.
func (f LoaderFunc) Load(ctx context.Context) (*pipeline.Pipeline, error) { return f(ctx) }

// ModelSpec is what a source knows of one model: its routing rule and versions.
type ModelSpec struct {
	Name     string
	Rule     Rule
	Versions []VersionSpec
}

// VersionSpec is one version of a model and how to load it.
type VersionSpec struct {
	Version string
	Loader  Loader
	// Err, when set, is why the source could not even describe how to load this version
	// (a malformed config, say). The version is listed, and reported failed with it.
	Err error
	// Refused, when set, is why the source would not take the version's latest content
	// (a mirror of object storage found a file that does not match its digest, say).
	// With a Loader, the source still holds content it took before: the version loads
	// from that and shows Refused as its Entry.LoadErr, as after a failed reload. Without
	// one the version is listed failed with it. Either way it never holds readiness
	// back (Entry.AtStart): what an upload holds is no fault of the server's start.
	Refused error
	// Provenance is what the source verified of the files the version loads from: a
	// mirror's SHA256SUMS and its signer. Zero when it verified nothing.
	Provenance Provenance
	// Calls names the models the version calls when it is a graph (its members). It
	// loads after every version that calls none, and is loaded again whenever one of
	// them loads, reloads or is dropped, so that it serves only while it checks
	// against what they are.
	Calls []string
}

// Provenance is what a source verified of a version's files (serve's, named here too).
type Provenance = serve.Provenance

// Source discovers models: the built-in ones, a model repository on disk, a test's.
type Source interface {
	// Models lists every model the source holds.
	Models(ctx context.Context) ([]ModelSpec, error)
	// Model re-reads one model, for a reload. It returns an error wrapping
	// ErrModelNotFound when the source has no such model.
	Model(ctx context.Context, name string) (ModelSpec, error)
}

// Fixed is a Source of fixed models, for built-ins and tests.
type Fixed []ModelSpec

// Models returns s.
func (s Fixed) Models(context.Context) ([]ModelSpec, error) { return s, nil }

// Model returns the model called name.
func (s Fixed) Model(_ context.Context, name string) (ModelSpec, error) {
	for _, m := range s {
		if m.Name == name {
			return m, nil
		}
	}
	return ModelSpec{}, ErrModelNotFound
}
