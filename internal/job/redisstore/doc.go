// Package redisstore is the job Store of queue mode: records live in Redis, shared by
// every API server and worker, so any server answers a poll for any job and a record
// outlives the process that wrote it.
//
// Each record is one JSON string under Options.Prefix + id. Update is optimistic: it
// reads the record, and a script writes the new one only if the stored one is still
// what was read, or Update starts again, so concurrent writers in different processes
// never lose each other's changes. A GET and a script are two round trips where
// WATCH/GET/MULTI..EXEC took three on a connection of their own; UpdateFrom, for a
// caller that holds the record it last wrote, skips the GET. A record that becomes
// final gets its expiry (Options.TTL) in the same write that finishes it. Records that
// never finish do not expire.
//
// The scripts that write a record also keep, per owner (job.Record.Owner), the counts
// behind the cap on unfinished jobs (CreateLua) and the byte budget (budgetLua), so
// that every server and worker shares them and a submission stays one round trip.
//
// Every failure to talk to Redis is reported wrapping job.ErrQueueUnavailable, which the
// API answers with 503 queue_unavailable rather than 404 or 500.
package redisstore
