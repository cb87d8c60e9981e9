package problem

// Kind is what sort of fault a refusal is, which each protocol answers with its own
// status: HTTP with HTTPStatus, gRPC with the code grpcapi gives it. A kind per HTTP
// status the domain's refusals take, since HTTP tells more of them apart than gRPC
// does (413 from 429, both RESOURCE_EXHAUSTED). The zero Kind is Internal, so that a
// refusal that names none is the server's fault rather than the client's.
type Kind uint8

const (
	Internal        Kind = iota // the server failed: 500, INTERNAL
	Invalid                     // the request is wrong: 400, INVALID_ARGUMENT
	Mismatched                  // the request differs from the one its idempotency key was first sent with: 422, INVALID_ARGUMENT
	Unauthenticated             // no valid key: 401, UNAUTHENTICATED
	Forbidden                   // the key lacks the scope: 403, PERMISSION_DENIED
	NotFound                    // what the request names is missing: 404, NOT_FOUND
	Conflict                    // what it names is in a state that refuses it: 409, FAILED_PRECONDITION
	TooLarge                    // the request, or the answer it asks for, is too large: 413, RESOURCE_EXHAUSTED
	Limited                     // the key, or the client, is over a limit: 429, RESOURCE_EXHAUSTED
	Unavailable                 // the server cannot serve it now; retry: 503, UNAVAILABLE
)

// httpStatuses are the kinds' HTTP statuses, as plain numbers: the status member of
// the problem document is part of the contract, and jobrecord, which writes a job's
// item errors without the REST server, reads it too, while this package stays off
// net/http.
var httpStatuses = [...]int{
	Internal:        500,
	Invalid:         400,
	Mismatched:      422,
	Unauthenticated: 401,
	Forbidden:       403,
	NotFound:        404,
	Conflict:        409,
	TooLarge:        413,
	Limited:         429,
	Unavailable:     503,
}

// HTTPStatus is the status HTTP answers a refusal of kind k with.
func (k Kind) HTTPStatus() int {
	if int(k) < len(httpStatuses) {
		return httpStatuses[k]
	}
	return httpStatuses[Internal]
}
