// Package store is how inferd reads a model repository kept somewhere other than its own
// disk: the Store interface a repository's bucket (or directory) is read through, the
// objects it lists and the errors it answers with. The implementations live in
// subpackages, one per kind of storage, so that a server built without one links none
// of its SDK.
package store
