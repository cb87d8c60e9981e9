// Package httpapi implements the contract: the router, and the hand-written handlers
// behind the strict interface generated from openapi.yaml, with the middleware around
// them: the API-key gate, limits, request ids and metrics. It is the one place where
// domain errors become problem+json responses, of the kind and code internal/problem
// classifies them as. Its packages hold the rest: operation (the contract's
// operations, read once), validator (requests checked against the contract), oipapi
// (the Open Inference Protocol's handlers), unescape (HTML escapes undone in the
// generated handlers' answers), middleware (the layers that take a few values rather
// than the Server: CORS, HEAD, draining, client addresses, spans, the access log),
// page (Swagger UI, the profiles, the queue dashboard), canned (net/http's own
// answers as problems), redact (load errors as clients see them) and urgency
// (priority, deadline and Request-Timeout).
package httpapi
