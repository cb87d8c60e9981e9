// Package app wires the API server, inferd, from what internal/daemon starts: the job
// runner of the configured mode, the REST and gRPC servers and the keys' reloads. It
// holds no logic of its own beyond start-up and shutdown order.
package app
