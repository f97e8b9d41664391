package main

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestCIPinsAreTheHarnessVersions: the versions .ci/run states are the
// ones the harness pins, and -pins tells a wrong or missing one.
func TestCIPinsAreTheHarnessVersions(t *testing.T) {
	ci, err := os.ReadFile("../../../../.ci/run")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^producer_pins='([^']*)'`).FindSubmatch(ci)
	if m == nil {
		t.Fatal(".ci/run states no producer_pins")
	}
	if err := checkPins(string(m[1])); err != nil {
		t.Error(err)
	}
	wrong := strings.Replace(string(m[1]), "ccusage@", "ccusage@0.", 1)
	if err := checkPins(wrong); err == nil || !strings.Contains(err.Error(), "ccusage is pinned at") {
		t.Errorf("a wrong version: %v", err)
	}
	if err := checkPins("codex@" + pinned()["codex"]); err == nil || !strings.Contains(err.Error(), "claude-code@") {
		t.Errorf("versions left out: %v", err)
	}
}
