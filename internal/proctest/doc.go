// Package proctest builds inferd's binaries and runs them as real processes on free
// ports, for tests that need the real thing: signals, restarts, several servers.
package proctest
