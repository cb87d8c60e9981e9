// Package middleware holds the HTTP layers around the API's router that need nothing
// of the Server but a few values: CORS, HEAD served as GET, Connection: close while
// draining, the client's address behind trusted proxies, the server span and the
// validator's span, and the access log's line. The Server passes in what each needs
// (origins, a draining flag, a tracer, a logger) rather than itself.
package middleware
