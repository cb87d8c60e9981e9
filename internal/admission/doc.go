// Package admission decides, before a call's body is read, whether it may go on: its
// API key and the scope its operation needs, the failed-key throttle, the key's cap on
// calls in progress and its token bucket (shared over Redis in queue mode). It knows
// no protocol: httpapi's gate reads the key from X-API-Key and writes a refusal as a
// problem document with Retry-After, grpcapi's interceptor reads it from the call's
// metadata and writes a status, and both ask the one Admission, so REST and gRPC share
// the keys' limits and word their refusals alike.
package admission
