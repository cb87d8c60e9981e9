// Package worker wires inferd-worker from internal/daemon: the Redis queue's worker,
// which runs the jobs servers queue, and its probes and metrics. It serves no API, so
// it links neither the REST nor the gRPC server.
package worker
