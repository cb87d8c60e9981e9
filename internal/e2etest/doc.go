// Package e2etest drives the real inferd binary through the Go SDK (package client):
// every operation of the contract, the problems a client meets, and the README's Go
// example. Every response is validated against openapi.yaml on its way to the SDK.
//
// With INFERD_E2E_URL set the tests target that server instead of starting their own
// (for instance through a validating proxy); INFERD_E2E_KEY and INFERD_E2E_ADMIN_KEY
// give its keys, by default the development keys dev-key and admin-key.
package e2etest
