// Package config reads the service's settings from the environment, applies defaults
// and validates them. Every setting is listed in README.md with its default.
package config
