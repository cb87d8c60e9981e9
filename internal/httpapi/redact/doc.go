// Package redact words the errors of a model's load for clients, without the
// server's own layout: paths inside the model repository relative to it, any other
// absolute path cut to its last element, and the ONNX Runtime library's error (which
// names the server's directories and how to build the library) replaced by a line
// that says only that it is missing. The server's log keeps the whole error.
package redact
