// Package registry holds every model version the server knows: it discovers them from
// sources, loads their pipelines in the background, routes version-less requests by
// each model's rule, batches concurrent requests to a version that asks for it (see
// internal/batch), and hot-reloads one version while requests keep flowing.
//
// The files follow the concerns: discover.go (discovery and warm-up loading), loaded.go
// (a loaded version and the one load-and-swap sequence), route.go, predict.go,
// reload.go, list.go and close.go.
package registry
