// Package config reads the service's settings from the environment, applies defaults
// and validates them. Settings is their one table: Load parses through it, --help
// prints it, and docs/settings.md, the one settings table of the documentation, is
// generated from it (`make docs`, or go generate) and checked against it.
package config

//go:generate go run ./docgen ../../docs/settings.md
