// Package gcs is a store.Store over a Google Cloud Storage bucket, for a repository named
// gs://bucket/prefix. It reads with the Google client library, which finds Application
// Default Credentials (a key file, the metadata server, Workload Identity) and
// STORAGE_EMULATOR_HOST by itself; an object's ETag is its generation. Requests that
// fail in a way worth retrying are retried a bounded number of times, so a store that
// is down is reported as such within seconds rather than after the library's own
// minutes of retries.
package gcs
