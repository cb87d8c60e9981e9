// Command docgen writes the settings table of internal/config into the documents
// named on its command line (docs/settings.md, the only one), between the table's
// markers: `make docs` runs it, and a test of internal/config fails when a document
// is stale.
package main
