// Package config reads the service's settings from the environment, applies defaults
// and validates them. Settings is their one table: Load parses through it, --help
// prints it, and README.md's Settings table is checked against it.
package config
