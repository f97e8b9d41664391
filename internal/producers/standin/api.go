package standin

import (
	"fmt"
	"net/http"
	"strings"
)

// An API is a vendor's stand-in: a Server answering from a Script. The
// vendor's package parses its requests, writes its wire format, and keeps
// its own name for the type (embedding *API).
type API[Req, Reply any] struct {
	*Server
	script *Script[Req, Reply]
}

// StartAPI checks every rule's reply with check, then serves on
// 127.0.0.1 the vendor's stand-in, S, that wrap makes of the API: handle
// answers each request with the API's script (Pick).
func StartAPI[S, Req, Reply any](rules []Rule[Req, Reply], check func(Reply) error, wrap func(*API[Req, Reply]) S,
	handle func(s S, ex *Exchange, w http.ResponseWriter, r *http.Request)) (S, error) {
	var none S
	for _, r := range rules {
		if err := check(r.Reply); err != nil {
			return none, fmt.Errorf("rule %s: %w", r.Name, err)
		}
	}
	script, err := NewScript(rules)
	if err != nil {
		return none, err
	}
	a := &API[Req, Reply]{script: script}
	s := wrap(a)
	if a.Server, err = Start(func(ex *Exchange, w http.ResponseWriter, r *http.Request) { handle(s, ex, w, r) }); err != nil {
		return none, err
	}
	return s, nil
}

// Pick is the answer to req: the reply of the first rule that matches and
// is not used up (noted in ex), or unscripted; and the answer's id,
// RULE_NN (the rule's name with underscores, and which use of it this
// is) or unscripted_SEQ, from which the vendor's package makes the ids it
// sends, so that they are the same on every run.
func (a *API[Req, Reply]) Pick(ex *Exchange, req Req, unscripted Reply) (Reply, string) {
	rule, hit, ok := a.script.Pick(req)
	if !ok {
		return unscripted, fmt.Sprintf("unscripted_%02d", ex.Seq)
	}
	ex.Rule, ex.Hit = rule.Name, hit
	return rule.Reply, fmt.Sprintf("%s_%02d", strings.ReplaceAll(rule.Name, "-", "_"), hit)
}

// Unused names the rules that never answered.
func (a *API[Req, Reply]) Unused() []string { return a.script.Unused() }
