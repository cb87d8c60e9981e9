// Package registry holds every model version the server knows: it discovers them from
// sources, loads their pipelines in the background, routes version-less requests by
// each model's rule, and hot-reloads one version while requests keep flowing.
package registry
