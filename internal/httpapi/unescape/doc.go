// Package unescape undoes encoding/json's HTML escaping (<, > and & as \u003c, \u003e,
// \u0026) in the answers of the generated strict handlers, whose encoder escapes and
// cannot be told not to: the escapes made a 1 MB echo of '<' a 6 MB answer.
package unescape
