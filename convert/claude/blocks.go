package claude

import (
	"github.com/rlog-ls/rlog-ls/convert/model"
	"github.com/rlog-ls/rlog-ls/internal/jsonscan"
)

// This file is the one reading of what a Claude Code line and a message's
// content block are, shared by the reader's events (AssistantEvents,
// UserEvents) and by the companion, which indexes a transcript (and the
// Agent SDK's JSONL, whose lines have the same shape) by byte offset
// without decoding it.

// BlockKind is what a content block of type typ in a message of role
// (model.KindAgent for an assistant message, model.KindUser for a user
// message) becomes: text is the role's own message, thinking and tool_use
// of an assistant are thinking and a call, tool_result of a user is a
// result; any other block is passed through.
func BlockKind(role model.Kind, typ string) model.Kind {
	switch {
	case typ == "text":
		return role
	case role == model.KindAgent && typ == "thinking":
		return model.KindThinking
	case role == model.KindAgent && typ == "tool_use":
		return model.KindToolCall
	case role == model.KindUser && typ == "tool_result":
		return model.KindToolResult
	}
	return model.KindPassthrough
}

// Entry is what a line says about itself, its values as slices of the
// line (JSON, undecoded) except the strings.
type Entry struct {
	Type, Timestamp, SessionID string
	// IsMeta and IsSidechain are the line's isMeta (a record the CLI
	// wrote, not the user) and isSidechain (a sub-agent's).
	IsMeta, IsSidechain bool
	// SessionAt is the session id's JSON value; Message and ToolUseResult
	// are the line's message and toolUseResult.
	SessionAt, Message, ToolUseResult []byte
}

// ScanEntry reads the fields of a line's object that say what it is.
// The Agent SDK names the session session_id, Claude Code sessionId.
func ScanEntry(ix *jsonscan.Index, line []byte) (e Entry, err error) {
	err = ix.Object(line, func(k, v []byte) error {
		switch string(jsonscan.KeyBytes(k)) {
		case "type":
			e.Type, _ = ix.String(v)
		case "timestamp":
			e.Timestamp, _ = ix.String(v)
		case "message":
			e.Message = v
		case "sessionId", "session_id":
			e.SessionID, _ = ix.String(v)
			e.SessionAt = v
		case "toolUseResult":
			e.ToolUseResult = v
		case "isMeta":
			e.IsMeta, _ = jsonscan.Bool(v)
		case "isSidechain":
			e.IsSidechain, _ = jsonscan.Bool(v)
		}
		return nil
	})
	return e, err
}

// ResultAgent reads a Task result's toolUseResult: the sub-agent whose
// transcript it names (agentId), and whether the agent runs in the
// background (isAsync).
func ResultAgent(toolUseResult []byte) (agentID string, background bool) {
	jsonscan.Members(toolUseResult, func(k, val []byte) error {
		switch string(k) {
		case "agentId":
			agentID, _ = jsonscan.String(val)
		case "isAsync":
			background, _ = jsonscan.Bool(val)
		}
		return nil
	})
	return agentID, background
}

// A Block is one content block of a message, found without decoding it.
type Block struct {
	// Kind is BlockKind of the block's type.
	Kind model.Kind
	// Raw is the block's JSON; ID, Name and Text its call id (tool_use's
	// id, tool_result's tool_use_id), tool name and text (text's text,
	// thinking's thinking), as JSON strings, nil when absent.
	Raw, ID, Name, Text []byte
	IsError             bool
	// MessageID is the message's id (a JSON string), nil when it has none.
	MessageID []byte
}

// ScanMessage reads a message object of role (see BlockKind): its id and
// content (JSON values, nil when absent), and each content block that is
// an object, in order, given to fn.
func ScanMessage(ix *jsonscan.Index, message []byte, role model.Kind, fn func(Block)) (id, content []byte) {
	if len(message) == 0 || message[0] != '{' {
		return nil, nil
	}
	ix.Members(message, func(k, v []byte) error {
		switch string(jsonscan.KeyBytes(k)) {
		case "content":
			content = v
		case "id":
			id = v
		}
		return nil
	})
	if len(content) == 0 || content[0] != '[' {
		return id, content
	}
	ix.Array(content, func(_ int, raw []byte) error {
		if len(raw) == 0 || raw[0] != '{' {
			return nil
		}
		b := Block{Raw: raw, MessageID: id}
		var typ []byte
		ix.Members(raw, func(k, v []byte) error {
			switch string(jsonscan.KeyBytes(k)) {
			case "type":
				typ = v
			case "text", "thinking":
				b.Text = v
			case "id", "tool_use_id":
				b.ID = v
			case "name":
				b.Name = v
			case "is_error":
				b.IsError, _ = jsonscan.Bool(v)
			}
			return nil
		})
		t, _ := ix.String(typ)
		b.Kind = BlockKind(role, t)
		fn(b)
		return nil
	})
	return id, content
}
