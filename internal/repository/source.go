package repository

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/inferd/inferd/internal/backend"
	"github.com/inferd/inferd/internal/registry"
)

// Options configure a Source.
type Options struct {
	// Dir is the repository (the MODELS_DIR setting). A missing or empty directory
	// holds no models; that is not an error, so a server with no repository still
	// serves its built-in models.
	Dir string
	// Backends are the runtimes model.yaml may name; a version naming another is
	// listed with the error.
	Backends backend.Catalogue
	// Reserved are model names the repository may not use because built-in models
	// have them.
	Reserved []string
	// MaxModelBytes caps the artifact a version loads (MAX_MODEL_BYTES); 0 means
	// DefaultMaxModelBytes.
	MaxModelBytes int64
	// Graphs is the registry the repository's graph versions call; nil serves no
	// graph (such a version fails to load saying so).
	Graphs *Graphs
}

// Source reads models from a repository directory. It keeps no state between calls,
// so every call sees the directory as it is now and it is safe for concurrent use.
type Source struct {
	opts Options
}

// New returns a Source for the repository opts.Dir.
func New(opts Options) *Source {
	if opts.MaxModelBytes <= 0 {
		opts.MaxModelBytes = DefaultMaxModelBytes
	}
	return &Source{opts: opts}
}

// validName keeps names usable in URL paths and file systems alike.
var validName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// Models lists every model in the repository, by name. A directory whose name
// starts with "." or "_" is skipped, as are model directories with no version
// directory. A malformed model.yaml or routing.yaml does not fail the listing: the
// versions it concerns are listed with the error, so the others still serve.
func (s *Source) Models(ctx context.Context) ([]registry.ModelSpec, error) {
	entries, err := os.ReadDir(s.opts.Dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the model repository: %w", err)
	}
	var specs []registry.ModelSpec
	for _, e := range entries {
		if !e.IsDir() || skipped(e.Name()) {
			continue
		}
		spec, err := s.Model(ctx, e.Name())
		if err != nil {
			return nil, err
		}
		if len(spec.Versions) > 0 {
			specs = append(specs, spec)
		}
	}
	return specs, nil
}

func skipped(name string) bool { return strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") }

// Model reads one model afresh, for a reload. Its error wraps
// registry.ErrModelNotFound when the repository has no such model.
func (s *Source) Model(_ context.Context, name string) (registry.ModelSpec, error) {
	dir := filepath.Join(s.opts.Dir, name)
	if !validName.MatchString(name) {
		// A reload names the model in its URL: a name with no directory is the client's
		// mistake (404), only a directory of that name is the repository's (500).
		if strings.ContainsAny(name, `/\`) || skipped(name) || !isDir(dir) {
			return registry.ModelSpec{}, fmt.Errorf("%w: %q", registry.ErrModelNotFound, name)
		}
		return registry.ModelSpec{}, fmt.Errorf("%w: %s: a model name may hold only letters, digits, '.', '_' and '-', and must start with a letter or digit", ErrInvalidConfig, dir)
	}
	if slices.Contains(s.opts.Reserved, name) {
		return registry.ModelSpec{}, fmt.Errorf("%w: %s: the name %q belongs to a built-in model; rename the directory", ErrReservedName, dir, name)
	}
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return registry.ModelSpec{}, fmt.Errorf("%w: no directory %s", registry.ErrModelNotFound, dir)
	}
	if err != nil {
		return registry.ModelSpec{}, fmt.Errorf("reading model %q: %w", name, err)
	}
	spec := registry.ModelSpec{Name: name}
	var versions []string
	for _, e := range entries {
		if !e.IsDir() || skipped(e.Name()) {
			continue
		}
		v := registry.VersionSpec{Version: e.Name()}
		if !validName.MatchString(v.Version) {
			v.Err = &ConfigError{File: filepath.Join(dir, v.Version), Msg: "a version name may hold only letters, digits, '.', '_' and '-', and must start with a letter or digit"}
		} else if c, _, err := s.readConfig(filepath.Join(dir, v.Version, ConfigFile)); err != nil {
			v.Err = err
		} else {
			v.Loader = &loader{src: s, dir: filepath.Join(dir, v.Version)}
			v.Calls = c.Calls()
		}
		spec.Versions = append(spec.Versions, v)
		versions = append(versions, v.Version)
	}
	rule, err := s.readRule(filepath.Join(dir, RoutingFile), versions)
	if err != nil {
		// A bad rule must not route requests by guesswork, so the model's versions
		// all fail with its reason and the rest of the repository still serves.
		for i := range spec.Versions {
			spec.Versions[i].Loader, spec.Versions[i].Err = nil, err
		}
		return spec, nil
	}
	spec.Rule = rule
	return spec, nil
}

func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}
