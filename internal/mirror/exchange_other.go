//go:build !linux

package mirror

import "errors"

// exchange is Linux's: elsewhere replace moves the old directory aside first.
func exchange(a, b string) error { return errors.New("no atomic exchange on this system") }
