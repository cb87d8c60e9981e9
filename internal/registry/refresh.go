package registry

import (
	"context"
	"errors"
	"slices"
)

// Refresh brings one model in line with its source after the source changed under it
// (a poll of a repository in object storage): as LoadModel, versions added since are
// loaded, ones gone are dropped, the routing rule re-read applies, and what the source
// refuses shows; then each version of changed that served before is rebuilt from the
// source as Reload rebuilds it, the old pipeline serving until the new one is in place
// and serving on when the new one fails. It runs alone among the model's load, unload
// and reload calls.
//
// A model an operator unloaded is left unloaded, and Refresh reports false: a poll
// must not undo an operator's decision; LoadModel (or a restart) brings it back. The
// error joins every version's failure, each wrapping ErrReloadFailed; a model gone
// from the source is dropped without error.
func (r *Registry) Refresh(ctx context.Context, name string, changed []string) (bool, error) {
	unlock, err := r.control.lock(ctx, name)
	if err != nil {
		return false, err
	}
	defer unlock()
	r.mu.RLock()
	skip := r.unloaded[name]
	r.mu.RUnlock()
	if skip {
		return false, nil
	}
	// What serves now: the versions loadModel loads are built from the source as it is,
	// so only these need a rebuild.
	var rebuild []string
	for _, ver := range changed {
		if r.serves(name, ver) && !slices.Contains(rebuild, ver) {
			rebuild = append(rebuild, ver)
		}
	}
	err = r.loadModel(ctx, name)
	if errors.Is(err, ErrModelNotFound) {
		return true, nil // gone from the source: loadModel dropped it
	}
	errs := []error{err}
	for _, ver := range rebuild {
		if !r.serves(name, ver) {
			continue // dropped with its directory meanwhile
		}
		if _, err := r.reload(ctx, name, ver); err != nil {
			errs = append(errs, err)
		}
	}
	return true, errors.Join(errs...)
}
