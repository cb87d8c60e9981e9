// Package signtest signs files with the real cosign in tests: cosign built from
// tools/cosign/go.mod (a module of its own, whose large dependency graph stays out of
// the other tools'), a key pair made by `cosign generate-key-pair` and signatures by
// `cosign sign-blob`, exactly as docs/storage.md tells a user to make them.
package signtest
