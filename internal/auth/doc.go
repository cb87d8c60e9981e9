// Package auth holds API keys and their scopes: parsing API_KEYS, the development keys,
// the constant-time check that the contract's security scheme is wired to, and Keys,
// the keyring in force, which a reload of API_KEYS_FILE replaces atomically.
package auth
