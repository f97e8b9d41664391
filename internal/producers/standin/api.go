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

// StartAPI checks every rule's reply with check, then serves handle on
// 127.0.0.1; handle answers with the API's script (Pick).
func StartAPI[Req, Reply any](rules []Rule[Req, Reply], check func(Reply) error,
	handle func(a *API[Req, Reply], ex *Exchange, w http.ResponseWriter, r *http.Request)) (*API[Req, Reply], error) {
	for _, r := range rules {
		if err := check(r.Reply); err != nil {
			return nil, fmt.Errorf("rule %s: %w", r.Name, err)
		}
	}
	script, err := NewScript(rules)
	if err != nil {
		return nil, err
	}
	a := &API[Req, Reply]{script: script}
	if a.Server, err = Start(func(ex *Exchange, w http.ResponseWriter, r *http.Request) { handle(a, ex, w, r) }); err != nil {
		return nil, err
	}
	return a, nil
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
