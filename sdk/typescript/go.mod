// An empty module fences node_modules off from the Go module at the repository root.
