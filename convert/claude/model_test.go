package claude

import (
	"strings"
	"testing"
)

// hasClaudePrefix is the lowering's test: every byte at each of the
// prefix's places (its letters' other cases, those next to them, non-ASCII
// and invalid UTF-8), names shorter than the prefix, and characters whose
// lower case is ASCII (the Kelvin sign) or longer (İ).
func TestClaudePrefixEveryByte(t *testing.T) {
	for _, m := range []string{"", "c", "claud", "claude", "CLAUDE", "Claude-sonnet-4-5", "claudf", "\u212aclaude", "İclaude", "cl\xffaude", "gpt-5"} {
		checkClaudePrefix(t, m)
	}
	for i := range len("claude") {
		for c := range 256 {
			checkClaudePrefix(t, "claude"[:i]+string(byte(c))+"claude"[i+1:]+"-x")
		}
	}
}

func FuzzClaudePrefix(f *testing.F) {
	f.Add("claude-opus-4")
	f.Add("CLAUDE")
	f.Add("\u212alaude")
	f.Fuzz(checkClaudePrefix)
}

func checkClaudePrefix(t *testing.T, m string) {
	t.Helper()
	if got, want := hasClaudePrefix(m), strings.HasPrefix(strings.ToLower(m), "claude"); got != want {
		t.Fatalf("hasClaudePrefix(%q) = %v, want %v", m, got, want)
	}
}
