// Package jobtest holds the tests every job store must pass, run by each store's own
// tests on a real instance of it.
package jobtest
