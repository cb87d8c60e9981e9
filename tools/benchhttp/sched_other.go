//go:build !linux

package main

import "errors"

func schedSet(int, bool) error { return errors.ErrUnsupported }
