//go:build !unix

package listen

func fileLimit() (int64, bool) { return 0, false }
