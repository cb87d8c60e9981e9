// Package canned rewrites the answers net/http writes by itself, before any handler
// runs (a request it cannot parse, headers too large, an unknown Transfer-Encoding or
// HTTP version), into the shape the server answers every refusal in: it wraps the
// listener, and the server words the body.
package canned
