// Package reposync keeps the registry in step with a model repository synced through
// internal/mirror (a bucket, or a polled directory): the first sync of a process
// before its models are discovered, then a poll every interval (and one on demand, for
// a worker handed a job for a version it has not seen), each poll's versions added,
// changed and removed loaded, rebuilt and dropped through the registry's own load
// (registry.Refresh), and the versions the mirror refused shown in the repository
// index with their reason (Source).
//
// source.go is the registry.Source over the mirror's copy with its refusals;
// syncer.go the polls and what they change in the registry.
package reposync
