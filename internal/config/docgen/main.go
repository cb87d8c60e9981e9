package main

import (
	"fmt"
	"os"

	"github.com/inferd/inferd/internal/config"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: docgen FILE...: writes the settings table between its markers in each FILE")
		os.Exit(2)
	}
	for _, file := range os.Args[1:] {
		if err := write(file); err != nil {
			fmt.Fprintf(os.Stderr, "docgen: %v\n", err)
			os.Exit(1)
		}
	}
}

func write(file string) error {
	b, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	doc, err := config.Splice(string(b), config.Table())
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	if doc == string(b) {
		return nil
	}
	return os.WriteFile(file, []byte(doc), 0o644)
}
