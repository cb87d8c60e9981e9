// Package app wires the service together from a Config: the registry and its sources,
// the job runner of the configured mode, metrics, and the HTTP server. It holds no
// logic of its own beyond start-up and shutdown order.
package app
