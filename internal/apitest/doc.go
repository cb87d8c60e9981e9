// Package apitest is the HTTP test client of inferd's tests. Every response it receives
// is validated against openapi.yaml (status, headers and body), so a handler cannot
// drift from the contract without a test failing; every GET is also sent as HEAD,
// which must answer with the GET's status and headers and no body. NewInMemory serves
// a handler over in-memory connections, for tests that run in a testing/synctest
// bubble on its fake clock. Log is a server's JSON log, from which a test reads a
// request's access log line.
package apitest
