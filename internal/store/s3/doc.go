// Package s3 is a store.Store over a bucket of Amazon S3 or of an S3-compatible server
// (MinIO, versitygw, Ceph), read with the AWS SDK for Go and configured the SDK's own
// way: the default credential chain (environment, shared files, web identity for
// IRSA, the instance's role), AWS_REGION, and AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL
// for a server other than AWS's, which is then addressed path-style.
package s3
