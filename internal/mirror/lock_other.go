//go:build !unix

package mirror

// lock is a no-op where flock is missing: one process per cache directory is then
// the operator's to ensure.
func lock(string) (func(), error) { return func() {}, nil }
