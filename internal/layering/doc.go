// Package layering holds the test that keeps the layers ARCHITECTURE.md
// describes: which of the project's packages may import which. It has no
// code of its own.
package layering
