// Package daemon is what both binaries, inferd and inferd-worker, are built from: the
// command line and its --help, --version and --healthcheck, the logger, metrics and
// tracing, the model registry over the repository (a directory or a synced store), the
// job predictor, the callbacks' sender and the queue's Redis client. It links neither
// the REST nor the gRPC server, so that the worker, which serves neither, does not
// link them either; internal/app wires the server and internal/worker the worker from
// it.
package daemon
