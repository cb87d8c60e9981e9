// Package validator checks every request of the API against the contract before a
// handler sees it: parameters, the API key through the contract's security schemes,
// and the body, which must be one JSON value, valid UTF-8, naming no member twice and
// holding no number beyond a double. It is kin-openapi's validator (as
// nethttp-middleware runs it) with paths of its own for the operations whose bodies
// are large or hot: the predict operations' bodies are decoded once (the one-pass
// path, with a fast path for the common bodies) and handed to the handler decoded,
// and the OIP infer operations' bodies are read once and left to internal/oip.
//
// What a refusal looks like on the wire is the caller's (Config.Fail): this package
// words the errors (Describe) but writes no problem itself.
package validator
