package registry

import (
	"errors"
)

// Close waits for in-flight requests and closes every pipeline, old and current.
func (r *Registry) Close() error {
	r.mu.Lock()
	var insts []*loaded
	for _, m := range r.models {
		for _, v := range m.versions {
			if v.cur != nil {
				insts = append(insts, v.cur)
				v.cur = nil
			}
		}
	}
	r.mu.Unlock()
	var errs []error
	for _, inst := range insts {
		errs = append(errs, inst.close())
	}
	r.drains.Wait()
	return errors.Join(errs...)
}
