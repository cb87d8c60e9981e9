// Package jobrecord is a job's record as the API serves it: the body of GET
// /jobs/{id} and of a completion callback. It sits apart from httpapi so that the
// worker, which delivers callbacks, encodes the same body without linking the REST
// server.
package jobrecord
