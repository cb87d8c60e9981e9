// Package signature verifies cosign's key-based blob signatures offline, with the
// standard library alone: a model version's SHA256SUMS signed with
//
//	cosign sign-blob --key cosign.key --tlog-upload=false --output-signature SHA256SUMS.sig SHA256SUMS
//
// is verified against the public keys an operator configures (cosign.pub, as
// `cosign generate-key-pair` writes it, or a KMS key's PEM). Nothing is fetched: no
// transparency log, no certificate, no trust root; the keys are the trust.
//
// The files follow the concerns: key.go (the public keys and their fingerprints),
// format.go (the files cosign writes: a .sig and a bundle), verify.go (the check) and
// errors.go (the sentinel errors).
package signature
