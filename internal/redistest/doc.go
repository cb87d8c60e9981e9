// Package redistest starts a private redis-server for a test, on a free port of the
// loopback interface, with persistence off, and kills it when the test ends. Tests never
// touch a shared Redis.
//
// When no redis-server binary is on PATH the test is skipped, unless the environment
// says CI=true: in CI a missing Redis is a failure, so queue mode is never silently
// left untested.
package redistest
