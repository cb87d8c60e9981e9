// Package dir is a store.Store over a directory of the local disk, so that a
// repository on disk is polled, verified and switched the way one in a bucket is.
package dir
