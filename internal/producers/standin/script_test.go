package standin

import (
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
)

func TestScriptPicksTheFirstRuleNotUsedUp(t *testing.T) {
	is := func(s string) func(string) bool { return func(r string) bool { return r == s } }
	s, err := NewScript([]Rule[string, int]{
		{Name: "once", When: is("a"), Reply: 1, Times: 1},
		{Name: "always", When: is("a"), Reply: 2},
		{Name: "never", When: is("z"), Reply: 3},
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []int
	for range 3 {
		r, _, ok := s.Pick("a")
		if !ok {
			t.Fatal("no rule answered a")
		}
		got = append(got, r.Reply)
	}
	if !slices.Equal(got, []int{1, 2, 2}) {
		t.Errorf("answers %v, want [1 2 2]", got)
	}
	if _, hit, _ := s.Pick("a"); hit != 3 {
		t.Errorf("the fourth a is hit %d of always, want 3", hit)
	}
	if _, _, ok := s.Pick("b"); ok {
		t.Error("a rule answered b")
	}
	if u := s.Unused(); !slices.Equal(u, []string{"never"}) {
		t.Errorf("unused %v, want [never]", u)
	}
}

func TestScriptRejectsBadRules(t *testing.T) {
	any := func(string) bool { return true }
	for _, rules := range [][]Rule[string, int]{
		{{Name: "", When: any}},
		{{Name: "a b", When: any}},
		{{Name: "a", When: any}, {Name: "a", When: any}},
		{{Name: "a"}},
	} {
		if _, err := NewScript(rules); err == nil {
			t.Errorf("NewScript(%v) accepted them", rules)
		}
	}
}

func TestServerRecordsEveryRequest(t *testing.T) {
	srv, err := Start(func(ex *Exchange, w http.ResponseWriter, r *http.Request) {
		ex.Rule, ex.Hit, ex.Answer = "echo", 1, string(ex.Body)
		w.WriteHeader(http.StatusAccepted)
		w.Write(ex.Body)
	})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	if !strings.HasPrefix(srv.URL, "http://127.0.0.1:") {
		t.Errorf("the stand-in listens at %s, not on 127.0.0.1", srv.URL)
	}
	for _, body := range []string{"one", "two"} {
		resp, err := http.Post(srv.URL+"/p?q=1", "text/plain", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(got) != body {
			t.Errorf("answer %q, want %q", got, body)
		}
	}
	ex := srv.Exchanges()
	if len(ex) != 2 {
		t.Fatalf("%d exchanges recorded, want 2", len(ex))
	}
	for i, want := range []string{"one", "two"} {
		e := ex[i]
		if e.Seq != i+1 || e.Method != "POST" || e.Path != "/p?q=1" || string(e.Body) != want ||
			e.Status != http.StatusAccepted || e.Rule != "echo" || e.Answer != want {
			t.Errorf("exchange %d: %+v", i, e)
		}
	}
	if err := srv.Err(); err != nil {
		t.Error(err)
	}
}

func TestMatchersCombine(t *testing.T) {
	type matcher func(int) bool
	even := matcher(func(n int) bool { return n%2 == 0 })
	big := matcher(func(n int) bool { return n > 10 })
	for _, c := range []struct {
		m    matcher
		n    int
		want bool
	}{
		{All(even, big), 12, true}, {All(even, big), 8, false}, {All[matcher](), 1, true},
		{Not(even), 3, true}, {Not(even), 4, false}, {Any[matcher](), 7, true},
	} {
		if got := c.m(c.n); got != c.want {
			t.Errorf("%d: %v, want %v", c.n, got, c.want)
		}
	}
}

// TestWithoutPrompt: the new prompt taken off the last turn, the turn
// dropped when it held nothing else, and a conversation that does not end
// with it said so.
func TestWithoutPrompt(t *testing.T) {
	prompt := Part{Type: "text", Text: "Go on."}
	asked := Turn{Role: "assistant", Parts: []Part{{Type: "text", Text: "Done."}}}
	result := Part{Type: "tool_result", ID: "t1", Text: "ok"}
	cases := []struct {
		in, want []Turn
		ok       bool
	}{
		{[]Turn{asked, {Role: "user", Parts: []Part{prompt}}}, []Turn{asked}, true},
		{[]Turn{asked, {Role: "user", Parts: []Part{result, prompt}}}, []Turn{asked, {Role: "user", Parts: []Part{result}}}, true},
		{[]Turn{asked}, []Turn{asked}, false},
		{[]Turn{asked, {Role: "user", Parts: []Part{result}}}, []Turn{asked, {Role: "user", Parts: []Part{result}}}, false},
		{[]Turn{{Role: "user"}}, []Turn{{Role: "user"}}, false},
		{nil, nil, false},
	}
	for i, c := range cases {
		if got, ok := WithoutPrompt(c.in, "Go on."); ok != c.ok || DiffConversations(c.want, got) != "" {
			t.Errorf("case %d: %v %v, want %v %v", i, got, ok, c.want, c.ok)
		}
	}
}
