package analysis

import (
	"bytes"
	"strings"
	"testing"
)

func TestCheckBinary(t *testing.T) {
	emoji := strings.Repeat("é😀 word ", 2000) // valid UTF-8 cut anywhere by the sample
	for _, tc := range []struct {
		name   string
		src    string
		binary bool
	}{
		{"empty", "", false},
		{"a log", okHeader + "u: hi\n", false},
		{"one NUL in a short log", "u: a\x00b\n", false},
		{"three NULs", "u: \x00\x00\x00 x\n", false},
		{"emoji across the sample's end", emoji, false},
		{"ANSI colours and tabs", "o: \x1b[31mred\x1b[0m\tok\r\n", false},
		{"Latin-1", "u: caf\xe9 cr\xe8me br\xfbl\xe9e, d\xe9j\xe0 vu, tr\xe8s bien, na\xefve\n", false},
		{"UTF-16", "\xff\xfeu\x00:\x00 \x00h\x00i\x00\n\x00", true},
		{"NULs", "\x00\x00\x00\x00" + strings.Repeat("a", 100), true},
		{"control bytes", strings.Repeat("\x01\x02\x03ab", 20), true},
		{"random bytes", string(bytes.Repeat([]byte{0x8f, 0xc3, 0x28, 0x0a, 0x41}, 100)), true},
	} {
		f, got := CheckBinary([]byte(tc.src), Config{})
		if got != tc.binary {
			t.Errorf("%s: binary %v, want %v", tc.name, got, tc.binary)
		}
		if got && (f.Code != "E007" || f.Severity != Error || f.Line != 0 || f.Span.Start != 0 || !strings.HasPrefix(f.Message, "Binary file")) {
			t.Errorf("%s: %+v", tc.name, f)
		}
	}
	cfg, _ := DisableCodes([]string{"E007"})
	if _, ok := CheckBinary([]byte("\x00\x00\x00\x00\x00"), cfg); ok {
		t.Error("disabled E007 still reported")
	}
	cfg, _ = Config{}.SetSeverities(map[string]string{"E007": "warning"})
	if f, _ := CheckBinary([]byte("\x00\x00\x00\x00\x00"), cfg); f.Severity != Warning {
		t.Errorf("severity %v", f.Severity)
	}
}
