package rlog

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/rlog-ls/rlog-ls/internal/difftest"
)

// TestEveryRequestIsTried holds ARCHITECTURE.md's recipe for a new request
// to what the tests do with it: every request registered in Features is
// asked in a marker (testdata/markers), on the hostile documents
// (docRequests) and by the differential harness (difftest.Probes), or is
// named below with why not. A request added to features.go alone fails
// here, naming the places still to fill.
func TestEveryRequestIsTried(t *testing.T) {
	// Not asked on the hostile documents: requests that are not about one
	// log's text at a position.
	notHostile := map[string]string{
		protocol.MethodWorkspaceSymbol:            "about the workspace's files, not one document (TestWorkspaceSymbols)",
		protocol.MethodWorkspaceExecuteCommand:    "runs a command, about no document",
		protocol.MethodCodeLensResolve:            "resolves a lens the server gave, not a document",
		MethodCompanionRecord:                     "about a companion's record (TestCompanionRecordRequest)",
		MethodSessionView:                         "about a session file in another format, not a log (view_test.go)",
		MethodSessionFormat:                       "about a session file in another format, not a log (view_test.go)",
		MethodSessions:                            "about the sessions index, not one document (sessions_test.go)",
		MethodMaskedView:                          "about a session file on disk, not a log's text at a place (mask_test.go)",
		protocol.MethodCallHierarchyIncomingCalls: "takes an item prepareCallHierarchy gave, not a place in a document (callhierarchy_test.go)",
		protocol.MethodCallHierarchyOutgoingCalls: "takes an item prepareCallHierarchy gave, not a place in a document (callhierarchy_test.go)",
	}
	// Not probed by the differential harness: answers that are not a
	// function of the document's text alone, or not about a document.
	notProbed := map[string]string{
		protocol.MethodWorkspaceSymbol:                  "reads the workspace's files from disk",
		protocol.MethodWorkspaceExecuteCommand:          "runs a command",
		protocol.MethodCodeLensResolve:                  "the harness compares the lenses; resolving one is codeLens/resolve's marker",
		MethodCompanionRecord:                           "reads the companion file from disk",
		MethodSessionView:                               "about a session file in another format, not an edited log",
		MethodSessionFormat:                             "about a session file in another format, not an edited log",
		MethodSessionReport:                             "the report's data is the session's numbers, held streaming = whole in report/",
		MethodSessions:                                  "reads the sessions index and the agents' stores from disk",
		MethodMaskedView:                                "reads a session file from disk, not an edited log (analysis.TestMaskLine holds the masking)",
		protocol.MethodTextDocumentPrepareCallHierarchy: "reads the sub-agents' files from disk",
		protocol.MethodCallHierarchyIncomingCalls:       "takes an item, and reads the session's files from disk",
		protocol.MethodCallHierarchyOutgoingCalls:       "takes an item, and reads the sub-agents' files from disk",
	}
	// No marker: requests whose answer a marker cannot hold (a file
	// outside the workspace, a command's effect).
	noMarker := map[string]string{
		protocol.MethodWorkspaceSymbol:            "a marker asks about a document; workspace symbols are TestWorkspaceSymbols'",
		protocol.MethodWorkspaceExecuteCommand:    "a command's effect is a file or an edit (actions_test.go, redact_test.go)",
		MethodSessionView:                         "about a session file in another format (view_test.go)",
		MethodSessionFormat:                       "about a session file in another format (view_test.go)",
		MethodSessionReport:                       "its answer is the whole report's data (insight_test.go)",
		MethodSessions:                            "its answer is the index's rows of files on disk (sessions_test.go)",
		MethodMaskedView:                          "its answer is a whole masked view of a file on disk (mask_test.go)",
		protocol.MethodCallHierarchyIncomingCalls: "takes an item, not a place a marker names (callhierarchy_test.go)",
		protocol.MethodCallHierarchyOutgoingCalls: "takes an item, not a place a marker names (callhierarchy_test.go)",
	}
	hostile := docRequests("file:///w/x.rlog", protocol.Position{})
	probed := map[string]bool{}
	for _, p := range difftest.Probes {
		probed[p.Method] = true
	}
	marked := markerMethods(t)
	for method := range Features().Requests {
		if _, ok := hostile[method]; !ok && notHostile[method] == "" {
			t.Errorf("%s is not asked on the hostile documents: add it to docRequests (robust_test.go)", method)
		}
		if !probed[method] && notProbed[method] == "" {
			t.Errorf("%s has no probe: add one to internal/difftest/probes.go", method)
		}
		if !marked[method] && noMarker[method] == "" {
			t.Errorf("%s is asked in no marker: add a #@ line to a txtar in testdata/markers", method)
		}
	}
	for _, exempt := range []map[string]string{notHostile, notProbed, noMarker} {
		for method := range exempt {
			if _, ok := Features().Requests[method]; !ok {
				t.Errorf("%s is exempted but not registered: take it out of the list", method)
			}
		}
	}
}

// markerMethods are the LSP methods the marker tests ask, as the runner
// spells them on the wire.
func markerMethods(t *testing.T) map[string]bool {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", "markers", "*.txtar"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no marker tests: %v", err)
	}
	at := regexp.MustCompile(`(?m)^#@ ([A-Za-z/]+)`)
	out := map[string]bool{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range at.FindAllSubmatch(b, -1) {
			name := string(m[1])
			switch {
			case name == "codeLens/resolve":
				out[protocol.MethodCodeLensResolve] = true
				out[protocol.MethodTextDocumentCodeLens] = true
			case strings.Contains(name, "/") && !strings.HasPrefix(name, "semanticTokens/"):
				out[name] = true
			default:
				out["textDocument/"+name] = true
			}
		}
	}
	return out
}
