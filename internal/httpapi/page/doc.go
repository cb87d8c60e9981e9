// Package page serves the pages outside the contract's generated server: the
// contract's documents and Swagger UI, net/http/pprof's profiles and the queue
// dashboard (asynqmon), with their refusals as problems like the API's. What they
// need of the server that mounts them (how it answers a problem, an admin key's
// guard, its log) comes in Pages as function values.
package page
