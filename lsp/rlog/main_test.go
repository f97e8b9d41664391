package rlog

import (
	"fmt"
	"os"
	"testing"

	"github.com/rlog-ls/rlog-ls/sessions"
)

// TestMain points the sessions index and the agents' stores (which
// workspace symbols and rlog/sessions read) at an empty home of the
// tests' own: the tests never read the user's sessions nor write the
// user's cache.
func TestMain(m *testing.M) {
	home, err := os.MkdirTemp("", "rlog-home-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	for k, v := range map[string]string{"HOME": home, "CLAUDE_CONFIG_DIR": "", "CODEX_HOME": "", sessions.IndexEnv: home + "/sessions.json"} {
		os.Setenv(k, v)
	}
	code := m.Run()
	os.RemoveAll(home)
	os.Exit(code)
}
