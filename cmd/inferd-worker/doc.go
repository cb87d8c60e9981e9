// Command inferd-worker runs asynchronous jobs from the Redis queue that inferd servers
// fill when QUEUE_URL is set. It reads the same settings and model repository as the
// server and serves /health, /ready and /metrics on WORKER_PORT (or
// WORKER_LISTEN_ADDR); `inferd-worker --help` lists the settings.
package main
