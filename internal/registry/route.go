package registry

import (
	"fmt"
	"slices"

	"github.com/inferd/inferd/internal/pipeline"
)

// Resolve returns the version a request for name and version would run on: version
// itself when it exists, else the one the model's rule chooses. Like Predict, it fails
// with ErrLoading or ErrUnavailable when that version has no pipeline to serve with,
// so a job is not accepted for a version that cannot run it now.
func (r *Registry) Resolve(name, version string) (string, error) {
	return r.resolve(name, version, false)
}

// ResolveTensors is Resolve for tensor-level calls (Infer), whose routing keeps to one
// tensor signature: see tensorVersionLocked.
func (r *Registry) ResolveTensors(name, version string) (string, error) {
	return r.resolve(name, version, true)
}

func (r *Registry) resolve(name, version string, tensors bool) (string, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	v, err := r.lookupLocked(name, version, tensors)
	if err = r.admitLocked(name, false, err); err != nil {
		return "", err
	}
	if err := v.servable(); err != nil {
		return "", err
	}
	return v.version, nil
}

// RouteTensors names the version a tensor-level call for name and version goes to,
// loaded or not.
func (r *Registry) RouteTensors(name, version string) (string, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	v, err := r.lookupLocked(name, version, true)
	if err != nil {
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

// lookupLocked finds the version a request for name and ver goes to: ver, or without
// one the version the model's rule chooses for a prediction, or for a tensor-level
// call (tensors) the one tensorVersionLocked chooses.
func (r *Registry) lookupLocked(name, ver string, tensors bool) (*version, error) {
	m := r.models[name]
	if m == nil {
		return nil, fmt.Errorf("%w: no model named %q", ErrModelNotFound, name)
	}
	if ver == "" {
		r.rndMu.Lock()
		if tensors {
			ver = r.tensorVersionLocked(m)
		} else {
			ver = m.rule.Choose(m.order, r.rnd)
		}
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

// tensorVersionLocked is the routing of tensor-level calls that name no version. A
// tensor client reads the model's signature (GET /v2/models/{m}) once and then sends
// tensors for it, so every such call must meet that signature: the rule's main
// version (see Rule.Main), or under a weighted rule any weighted version whose inputs
// and outputs are the main one's, drawn by the weights among those. A canary with
// another signature takes tensor calls only when they name it. Call it under r.mu
// and r.rndMu.
func (r *Registry) tensorVersionLocked(m *model) string {
	main := m.rule.Main(m.order)
	if m.rule.Strategy != Weighted {
		return main
	}
	mv := m.versions[main]
	if mv == nil || mv.cur == nil {
		return main // its fallback, if any, decides
	}
	sig := mv.cur.p.Info
	total := 0.0
	var same []string
	for _, ver := range m.order {
		v := m.versions[ver]
		if w := m.rule.Weights[ver]; w > 0 && v != nil && v.cur != nil && sameSignature(v.cur.p.Info, sig) {
			same = append(same, ver)
			total += w
		}
	}
	x := r.rnd.Float64() * total
	for _, ver := range same {
		if x < m.rule.Weights[ver] {
			return ver
		}
		x -= m.rule.Weights[ver]
	}
	return main
}

// sameSignature reports whether two pipelines' tensor calls send and get the same
// tensors.
func sameSignature(a, b pipeline.Info) bool {
	eq := func(x, y pipeline.Tensor) bool {
		return x.Name == y.Name && x.DType == y.DType && slices.Equal(x.Shape, y.Shape)
	}
	return slices.EqualFunc(a.TensorInputs, b.TensorInputs, eq) && slices.EqualFunc(a.TensorOutputs, b.TensorOutputs, eq)
}
