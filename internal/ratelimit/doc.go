// Package ratelimit keeps per-key rate limits in Redis, so that every API server on one
// Redis draws from the same bucket: N servers enforce the configured rate, not N times it.
// It decides nothing about what happens when Redis cannot be reached: its caller falls
// back to a local bucket.
package ratelimit
