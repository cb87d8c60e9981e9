// Package cli is inferctl: subcommands parsed with the standard flag package, input
// readers (JSON, JSON Lines, CSV), JSON and table output, a progress bar, and the
// mapping from problems to exit codes. It talks to the server only through the Go SDK.
package cli
