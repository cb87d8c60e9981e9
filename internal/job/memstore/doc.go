// Package memstore is the in-memory job Store of the in-process mode: records live in
// this process only and are gone when it exits.
package memstore
