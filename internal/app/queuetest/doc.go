// Package queuetest holds the end-to-end tests of queue mode (see
// docs/design.md#queue-mode-is-tested-with-real-processes): the built
// inferd and inferd-worker binaries, several of each, on one private redis-server,
// talking over real sockets. Processes are killed and restarted, and so is Redis, to
// show what a client sees when that happens in production.
//
// The package has no code outside its tests. Run it with
//
//	go test -race -count=1 ./internal/app/queuetest
//
// and its benchmark, which measures end-to-end jobs/s and the pickup latency of idle
// workers, with
//
//	go test -run '^$' -bench QueueMode ./internal/app/queuetest
//
// The binaries are built with -race by default (internal/proctest); set INFERD_BIN_DIR
// to a directory holding inferd and inferd-worker (for example bin/ after `make build`)
// to run the tests or the benchmark against those instead; BenchmarkQueueMode gives
// the commands for figures worth quoting.
package queuetest
