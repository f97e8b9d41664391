package geminicli

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/rlog-ls/rlog-ls/convert/gemini/records"
	"github.com/rlog-ls/rlog-ls/internal/producers/harness"
	"github.com/rlog-ls/rlog-ls/internal/producers/sandbox"
)

func TestMain(m *testing.M) {
	sandbox.Main()
	os.Exit(m.Run())
}

// pinnedFixtures is the folder of the pinned version's recordings.
var pinnedFixtures = filepath.Join("..", "..", "..", FixturesDir, Version)

// TestFixturesAreComplete holds the committed recordings to what the
// scenarios say, on a fresh clone without npm: every scenario recorded
// with the pinned version, its checks passing (every run as expected,
// every request scripted, every rule used, the sessions by kind, every
// name known to convert/gemini/records, the files' tokens equal to the
// CLI's stats by role), tokens.json what the files and runs say, and
// ccusage's figures.
func TestFixturesAreComplete(t *testing.T) {
	driver.EachFixture(t, pinnedFixtures, func(t *testing.T, s *Scenario, dir string, res *Results) {
		for _, r := range harness.ReadLines[RequestSummary](t, filepath.Join(dir, harness.RequestsName)) {
			if r.Rule == "" || r.Model == "" {
				t.Errorf("%s: request %d has no rule or model", harness.RequestsName, r.Seq)
			}
		}
		counted := harness.CheckRecount(t, TokensName, func() (*Accounting, error) { return ReadAccounting(dir) },
			func() (*Accounting, error) { return Count(filepath.Join(dir, GeminiDirName), res.Steps) })
		checkCCUsage(t, dir, counted)
	})
}

// checkCCUsage: ccusage has one row per session, each file of it counted
// on its own (so a migrated session's .json and .jsonl both), input
// without the cached part.
func checkCCUsage(t *testing.T, dir string, acct *Accounting) {
	t.Helper()
	rows := harness.ReadCCUsage(t, dir)
	if len(rows) != len(acct.Sessions) {
		t.Errorf("ccusage has %d sessions, the files %d", len(rows), len(acct.Sessions))
	}
	for _, row := range rows {
		i := slices.IndexFunc(acct.Sessions, func(s SessionTokens) bool { return s.Session == row.SessionID })
		if i < 0 {
			t.Errorf("ccusage counts session %s, which no file has", row.SessionID)
			continue
		}
		var want MessageTokens
		for _, f := range acct.Sessions[i].Files {
			ft := fileTokens(t, filepath.Join(dir, GeminiDirName, f))
			want.Input += ft.Input
			want.Cached += ft.Cached
			want.Output += ft.Output
			want.Total += ft.Total
		}
		if !row.Counts(want.Input, want.Cached, want.Output, want.Total) {
			t.Errorf("ccusage counts session %s as %+v; its files, each on its own, %+v", row.SessionID, row, want)
		}
	}
}

// fileTokens sums a file's distinct gemini messages.
func fileTokens(t *testing.T, path string) MessageTokens {
	t.Helper()
	recs, err := ReadSessionFile(path)
	if err != nil {
		t.Fatal(err)
	}
	last := map[string]MessageTokens{}
	for _, r := range recs {
		if r.Message != nil && r.Message.Type == "gemini" && r.Message.Tokens != nil {
			last[r.Message.ID] = *r.Message.Tokens
		}
	}
	var sum MessageTokens
	for _, m := range last {
		sum.Input += m.Input
		sum.Cached += m.Cached
		sum.Output += m.Output
		sum.Total += m.Total
	}
	return sum
}

// TestRecordsPackageIsExact: every name marked Recorded in
// convert/gemini/records appears in the fixtures (and Check holds every
// name in the fixtures to be listed there).
func TestRecordsPackageIsExact(t *testing.T) {
	driver.CheckVocabulary(t, pinnedFixtures)
	if records.Version != Version || records.LegacyVersion != LegacyVersion {
		t.Errorf("records.Version %s and LegacyVersion %s, the pinned %s and %s", records.Version, records.LegacyVersion, Version, LegacyVersion)
	}
}

func TestReadmeIsTheRecording(t *testing.T) {
	driver.CheckReadme(t, pinnedFixtures, Readme)
}

// TestSessionFilesBothForms reads a JSONL session and a single-JSON one:
// records in order with their session, messages upserted by id in the
// accounting, an unknown record kind and message type reported.
func TestSessionFilesBothForms(t *testing.T) {
	dir := t.TempDir()
	chats := filepath.Join(dir, "tmp", "p", "chats")
	os.MkdirAll(chats, 0o755)
	os.WriteFile(filepath.Join(chats, "session-a.jsonl"), []byte(`{"sessionId":"A","projectHash":"h","startTime":"t","lastUpdated":"t","kind":"main"}
{"id":"m1","type":"gemini","content":"x","tokens":{"input":10,"output":1,"cached":4,"thoughts":0,"tool":0,"total":11}}
{"id":"m1","type":"gemini","content":"x","tokens":{"input":10,"output":2,"cached":4,"thoughts":0,"tool":0,"total":12},"toolCalls":[{"status":"success"}]}
{"$set":{"lastUpdated":"u","brandNew":1}}
{"id":"m2","type":"hologram","content":"?"}
{"$teleport":"m1"}
`), 0o644)
	os.WriteFile(filepath.Join(chats, "session-b.json"), []byte(`{"sessionId":"B","kind":"main","messages":[
  {"id":"n1","type":"user","content":[{"text":"hi"}]},
  {"id":"n2","type":"gemini","content":"yo","tokens":{"input":5,"output":1,"cached":0,"total":6}}]}`), 0o644)
	acct, err := Count(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []SessionTokens{
		{Session: "A", Kind: "main", Files: []string{"tmp/p/chats/session-a.jsonl"}, Messages: 1, Tokens: MessageTokens{Input: 10, Output: 2, Cached: 4, Total: 12}},
		{Session: "B", Kind: "main", Files: []string{"tmp/p/chats/session-b.json"}, Messages: 1, Tokens: MessageTokens{Input: 5, Output: 1, Total: 6}},
	}
	if !reflect.DeepEqual(acct.Sessions, want) {
		t.Errorf("sessions %+v, want %+v", acct.Sessions, want)
	}
	if got := acct.KindTotal("main"); got != (Tokens{Input: 11, Prompt: 15, Candidates: 3, Total: 18, Cached: 4}) {
		t.Errorf("main total %+v", got)
	}
	inv, err := TakeInventory(dir)
	if err != nil {
		t.Fatal(err)
	}
	unknown := inv.Unknown(vocabulary.Known)
	wantUnknown := []string{"$set key brandNew", "message type hologram", "record {$teleport}"}
	if !slices.Equal(unknown, wantUnknown) {
		t.Errorf("unknown %v, want %v", unknown, wantUnknown)
	}
	if inv.Kinds[RecordKind]["session"] != 1 || inv.Kinds[ToolStatus]["success"] != 1 {
		t.Errorf("inventory %+v", inv.Kinds)
	}
	os.WriteFile(filepath.Join(chats, "session-a.jsonl"), []byte("{}\nnot json\n"), 0o644)
	if _, err := TakeInventory(dir); err == nil || !strings.Contains(err.Error(), "session-a.jsonl:2") {
		t.Errorf("error %v, want one naming session-a.jsonl:2", err)
	}
}

func TestLastObject(t *testing.T) {
	stderr := []byte("YOLO mode\n{\n  \"session_id\": \"s\",\n  \"error\": {\"code\": 400}\n}\nError: at x (y)\n{\n  status: 400\n}\n")
	if got := string(lastObject(stderr)); got != `{"session_id":"s","error":{"code":400}}` {
		t.Errorf("lastObject = %s", got)
	}
	if lastObject([]byte("no json here\n")) != nil {
		t.Error("lastObject found an object in plain text")
	}
}
