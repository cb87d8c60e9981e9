// Package auth holds API keys and their scopes: parsing API_KEYS, the development keys,
// and the constant-time check that the contract's security scheme is wired to.
package auth
