// Package echo is the built-in model that returns its input unchanged. It needs no
// files, so it is registered in versions v1 and v2 on every server.
package echo
