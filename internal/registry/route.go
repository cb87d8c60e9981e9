package registry

import (
	"fmt"
)

// Resolve returns the version a request for name and version would run on: version
// itself when it exists, else the one the model's rule chooses. Like Predict, it fails
// with ErrLoading or ErrUnavailable when that version has no pipeline to serve with,
// so a job is not accepted for a version that cannot run it now.
func (r *Registry) Resolve(name, version string) (string, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	v, err := r.lookupLocked(name, version)
	if err != nil {
		return "", err
	}
	if err := v.servable(); err != nil {
		return "", err
	}
	return v.version, nil
}

// servable says why a version without a pipeline cannot serve; call it under r.mu.
func (v *version) servable() error {
	switch {
	case v.cur != nil:
		return nil
	case v.status == StatusLoading:
		return fmt.Errorf("%w: %s %s is still loading; retry shortly", ErrLoading, v.name, v.version)
	default:
		return fmt.Errorf("%w: %s %s failed to load: %w", ErrUnavailable, v.name, v.version, v.err)
	}
}

func (r *Registry) lookupLocked(name, ver string) (*version, error) {
	m := r.models[name]
	if m == nil {
		return nil, fmt.Errorf("%w: no model named %q", ErrModelNotFound, name)
	}
	if ver == "" {
		r.rndMu.Lock()
		ver = m.rule.Choose(m.order, r.rnd)
		if v := m.versions[ver]; v != nil && v.cur == nil {
			ver = r.fallbackLocked(m, v)
		}
		r.rndMu.Unlock()
	}
	v := m.versions[ver]
	if v == nil {
		return nil, fmt.Errorf("%w: model %q has no version %q (it has %v)", ErrVersionNotFound, name, ver, m.order)
	}
	return v, nil
}
