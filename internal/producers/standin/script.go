package standin

import (
	"fmt"
	"strings"
	"sync"
)

// A Rule answers the requests it matches: When decides from the parsed
// request, Reply is the answer. Times limits how many requests it answers
// (0: any number); a used-up rule lets the next matching rule answer.
type Rule[Req, Reply any] struct {
	Name  string
	When  func(Req) bool
	Reply Reply
	Times int
}

// All matches when every m matches: the matchers of each API's stand-in
// (anthropic, gemini, openai) combine through All, Not and Any.
func All[M ~func(Req) bool, Req any](ms ...M) M {
	return func(r Req) bool {
		for _, m := range ms {
			if !m(r) {
				return false
			}
		}
		return true
	}
}

// Not matches when m does not.
func Not[M ~func(Req) bool, Req any](m M) M { return func(r Req) bool { return !m(r) } }

// Any matches every request.
func Any[M ~func(Req) bool, Req any]() M { return func(Req) bool { return true } }

// A Script picks each answer from its rules, the first that matches and is
// not used up. It is safe for concurrent use (agents run sub-agents in
// parallel).
type Script[Req, Reply any] struct {
	rules []Rule[Req, Reply]

	mu   sync.Mutex
	hits []int
}

// NewScript checks that rule names are unique and not empty (they name
// answers in the recorded exchanges and the ids derived from them).
func NewScript[Req, Reply any](rules []Rule[Req, Reply]) (*Script[Req, Reply], error) {
	seen := map[string]bool{}
	for i, r := range rules {
		if r.Name == "" || strings.ContainsAny(r.Name, " \t\n") {
			return nil, fmt.Errorf("rule %d: a name without spaces is needed, got %q", i, r.Name)
		}
		if seen[r.Name] {
			return nil, fmt.Errorf("rule %q: the name is used twice", r.Name)
		}
		if r.When == nil {
			return nil, fmt.Errorf("rule %q: no When", r.Name)
		}
		seen[r.Name] = true
	}
	return &Script[Req, Reply]{rules: rules, hits: make([]int, len(rules))}, nil
}

// Pick returns the rule that answers req and which use of it this is
// (from 1), or ok false when no rule matches.
func (s *Script[Req, Reply]) Pick(req Req) (rule Rule[Req, Reply], hit int, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, r := range s.rules {
		if r.Times > 0 && s.hits[i] >= r.Times {
			continue
		}
		if r.When(req) {
			s.hits[i]++
			return r, s.hits[i], true
		}
	}
	return rule, 0, false
}

// Unused names the rules that never answered, in script order.
func (s *Script[Req, Reply]) Unused() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var names []string
	for i, r := range s.rules {
		if s.hits[i] == 0 {
			names = append(names, r.Name)
		}
	}
	return names
}
