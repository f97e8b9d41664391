// Package layering reads the one description of the project's parts and
// the arrows between them, the "Parts and arrows" tables of
// ARCHITECTURE.md (Parse), and holds the module's packages and their
// imports to it (Packages, Check); its test runs the check on the module.
package layering
