// Package keywatch keeps the API keys of a running server in step with API_KEYS_FILE:
// it re-reads the file on a timer and on SIGHUP, puts a new keyring in force with one
// atomic swap, and keeps the keys in force when the file cannot be read or parsed.
package keywatch
