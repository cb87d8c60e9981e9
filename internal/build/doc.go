// Package build names the build a binary is: the version and commit `make build` stamps
// into it, and the version of the contract it was built with. inferd, inferd-worker and
// inferctl report the same three, so a bug report names the same things for each.
package build
