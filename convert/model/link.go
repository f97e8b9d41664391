package model

// Link ties a session file to a sub-agent's file: the session that
// started the sub-agent and the sub-agent's own file are two files, and a
// Link, seen from one of them, names the other.
type Link struct {
	// Path is the other file: the sub-agent's (from its session) or the
	// session's that started it (from the sub-agent).
	Path string
	// CallID is the session's call that started the sub-agent (Claude
	// Code's Agent tool_use id, Codex's spawn_agent call id, Gemini CLI's
	// invoke_agent call id, the autopilot's x: line id); "" when the files
	// do not say.
	CallID string
	// AgentID is the sub-agent's own id, which its events carry (rlog's
	// tid= on the sub-agent's x: lines and turns).
	AgentID string
	// Type is the sub-agent's type (general-purpose, Explore, a Codex
	// agent's name, a Gemini CLI agent's name); "" when not recorded.
	Type string
}
