package registry

// observe gives v its observer and reports its state.
func (r *Registry) observe(v *version) {
	v.obs = r.obs.Version(v.name, v.version)
	v.obs.State(v.status)
}
