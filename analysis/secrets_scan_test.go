package analysis

import (
	"bytes"
	"slices"
	"testing"

	"github.com/rlog-ls/rlog-ls/internal/corpus"
	"github.com/rlog-ls/rlog-ls/internal/gen"
)

// appendSecretsWordByWord is the straightforward form of AppendSecrets
// (word run by word run, every byte tested in a branch), which the
// class-table loop must match exactly.
func appendSecretsWordByWord(dst []SecretMatch, line []byte) []SecretMatch {
	for i := 0; i < len(line); {
		c := line[i]
		if wordByte[c] {
			j := i + 1
			for j < len(line) && wordByte[line[j]] {
				j++
			}
			if m, ok := wordSecret(line, i, j); ok {
				dst = append(dst, m)
				i = m.End
				continue
			}
			if i > 0 && line[i-1] == '\\' && isEscapeLetter(c) {
				if m, ok := wordSecret(line, i+1, j); ok {
					dst = append(dst, m)
					i = m.End
					continue
				}
			}
			i = j
			continue
		}
		if c == '=' || c == ':' {
			m, ok := assignedSecret(line, i)
			if !ok && c == ':' {
				m, ok = urlPassword(line, i)
			}
			if ok {
				dst = append(dst, m)
				i = m.End
				continue
			}
		}
		i++
	}
	return dst
}

func checkSameSecrets(t *testing.T, line []byte) {
	t.Helper()
	got, want := FindSecrets(line), appendSecretsWordByWord(nil, line)
	if !slices.Equal(got, want) {
		t.Fatalf("%q:\n got %+v\nwant %+v", line, got, want)
	}
}

var secretScanSeeds = []string{
	"u: " + anthropicKey,
	`{"a":"\n` + anthropicKey + `","b":"\tpassword=Tr0ub4dor3xK"}`,
	`\bBearer ` + jwtToken,
	"x=sk-ant-" + "AbC123dEf456GhI789jKl0" + "=sk-proj-AbC123dEf456GhI789jKl0mno",
	"Authorization: Basic dXNlcjpwYXNzd29yZA==",
	"postgres://admin:S3cr3tPw@db:5432/x -----BEGIN RSA PRIVATE KEY----- MIIEow",
	"ghp_0123456789abcdefghijABCDEFGHIJ0123456789 AKIAIOSFODNN7EXAMPLQ xoxb-1234567890-abcdefghij",
	`\\nsk-ant-AbC123dEf456GhI789jKl0 \fbasic \rrk_live_0123456789abcdefgh`,
	"api_key: 7f3a9c2e1b8d4f6a0c5e npm_0123456789abcdefghijABCDEFGHIJ012345 AIzaSyA-0123456789abcdefghijklmnopqrstu",
}

// The class-table scan finds exactly what the word-by-word scan finds: on
// the seeds, every line of a generated session, of the fixtures and of
// the corpus.
func TestSecretScanMatchesWordByWord(t *testing.T) {
	for _, s := range secretScanSeeds {
		checkSameSecrets(t, []byte(s))
	}
	var buf bytes.Buffer
	if err := gen.Write(&buf, gen.Options{Bytes: 1 << 20, FindingRate: 0.05, Seed: 7}); err != nil {
		t.Fatal(err)
	}
	for _, line := range bytes.Split(buf.Bytes(), []byte("\n")) {
		checkSameSecrets(t, line)
	}
	n := 0
	eachLine(t, "../testdata", func(_ string, _ int, line []byte) {
		checkSameSecrets(t, line)
		n++
	})
	t.Logf("compared %d lines of the fixtures", n)
	root, ok := corpus.Sweep(t)
	if !ok {
		return
	}
	n = 0
	eachLine(t, root, func(_ string, _ int, line []byte) {
		checkSameSecrets(t, line)
		n++
	})
	t.Logf("compared %d corpus lines", n)
}

func FuzzSecretScanMatchesWordByWord(f *testing.F) {
	for _, s := range secretScanSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) { checkSameSecrets(t, line) })
}
