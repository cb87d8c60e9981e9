// Package echo is the model that returns its input unchanged. It needs no files: it
// is the built-in model echo, registered in versions v1 and v2 on every server, and
// the backend echo a repository's model.yaml may name, with a simulated latency for
// load and queue tests.
package echo
