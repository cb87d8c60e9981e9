// Package storetest holds what every store.Store implementation is tested with: the
// Bucket a test writes a repository's objects into behind the Store's back, and
// Conformance, the behaviour every Store must have, run by each implementation's
// tests against its real server (versitygw for S3, fake-gcs-server for GCS, a
// directory for the local disk).
package storetest
