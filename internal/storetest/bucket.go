package storetest

import (
	"os"
	"testing"
)

// Bucket is a repository's storage, started for one test, that the test writes to
// directly, the way a user's upload tool does, not through the Store under test.
type Bucket interface {
	// URL is the repository as MODELS_DIR names it: "s3://bucket/prefix", or a
	// directory.
	URL() string
	// Env is what a process needs in its environment to reach the bucket (endpoint,
	// region, credentials), as NAME=value.
	Env() []string
	// Put writes an object below the repository's root ("iris/v1/model.onnx").
	Put(t testing.TB, key string, data []byte)
	// Delete removes one; deleting a missing one is not an error.
	Delete(t testing.TB, key string)
}

// Outage is a Bucket whose server the test can stop and start again, to show what a
// store that is down does to its readers.
type Outage interface {
	Bucket
	// Stop kills the server: every request to it then fails to connect.
	Stop(t testing.TB)
	// Start runs it again on the same address, with the objects it held.
	Start(t testing.TB)
}

// Require fails the test when a server it needs is missing under CI=true, where a
// part left untested is a failure, and skips it otherwise.
func Require(t testing.TB, what string, err error) {
	t.Helper()
	if err == nil {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s: %v (CI=true: a missing store is a failure)", what, err)
	}
	t.Skipf("%s: %v", what, err)
}
