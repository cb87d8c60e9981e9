// Package deploycheck holds the tests of the deployment artifacts under deploy/: the
// Kubernetes manifests, decoded strictly into the Kubernetes API types, and the
// compose file as docker-compose reads it. Both check every environment variable they
// set against the settings inferd reads (config.Settings). It lives in the tools
// module so that the main module does not carry the Kubernetes API types.
package deploycheck
