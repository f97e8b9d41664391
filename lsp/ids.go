package lsp

import (
	"bytes"
	"strconv"
	"strings"
	"sync"

	"github.com/segmentio/encoding/json"
	"go.lsp.dev/jsonrpc2"
)

// jsonrpc2 v0.10.0 keeps a request id in an int32 or a non-empty string
// (pitfall 7: an id above 2^31-1 fails to decode and the connection dies;
// and an empty string id would be echoed back as 0). idTable lets every
// other id JSON-RPC allows (large or negative-zero or fractional numbers,
// "", null) through: the wireStream swaps such an id for an internal string
// id on the way in and puts the original text back on the reply.

// internalIDPrefix starts every internal id. A client string id that happens
// to start with it is remapped as well, so the two can never collide.
const internalIDPrefix = "\x00rlog-ls#"

// requestKey is the canonical JSON text of a client request id: the key
// under which $/cancelRequest finds the request, whatever its id's form.
type requestKey string

type idKind int

const (
	idInvalid idKind = iota // object, array, boolean: not a JSON-RPC id
	idNative                // representable as a jsonrpc2.ID
	idRemap                 // valid, but needs an internal id
)

// classifyID tells how the raw id of an incoming request can be carried.
func classifyID(raw json.RawMessage) (idKind, jsonrpc2.ID) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return idInvalid, jsonrpc2.ID{}
	}
	switch c := raw[0]; {
	case c == '"':
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return idInvalid, jsonrpc2.ID{}
		}
		if s == "" || strings.HasPrefix(s, internalIDPrefix) {
			return idRemap, jsonrpc2.ID{}
		}
		return idNative, jsonrpc2.NewStringID(s)
	case c == '-' || ('0' <= c && c <= '9'):
		text := string(raw)
		n, err := strconv.ParseInt(text, 10, 32)
		if err == nil && strconv.FormatInt(n, 10) == text {
			return idNative, jsonrpc2.NewNumberID(int32(n))
		}
		return idRemap, jsonrpc2.ID{}
	case c == 'n': // null: allowed by JSON-RPC, answered with null
		return idRemap, jsonrpc2.ID{}
	default:
		return idInvalid, jsonrpc2.ID{}
	}
}

// keyOf canonicalises a raw id: strings re-encoded, integers in decimal,
// anything else as written.
func keyOf(raw json.RawMessage) requestKey {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			b, _ := json.Marshal(s)
			return requestKey(b)
		}
	}
	if n, err := strconv.ParseInt(string(raw), 10, 64); err == nil {
		return requestKey(strconv.FormatInt(n, 10))
	}
	return requestKey(raw)
}

type idTable struct {
	mu       sync.Mutex
	next     uint64
	original map[jsonrpc2.ID]json.RawMessage // internal id -> id as the client wrote it
}

func newIDTable() *idTable {
	return &idTable{original: map[jsonrpc2.ID]json.RawMessage{}}
}

// remap returns a fresh internal id standing for raw until release.
func (t *idTable) remap(raw json.RawMessage) jsonrpc2.ID {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.next++
	id := jsonrpc2.NewStringID(internalIDPrefix + strconv.FormatUint(t.next, 10))
	t.original[id] = append(json.RawMessage(nil), bytes.TrimSpace(raw)...)
	return id
}

// wire returns the id as the client wrote it.
func (t *idTable) wire(id jsonrpc2.ID) json.RawMessage {
	t.mu.Lock()
	raw, ok := t.original[id]
	t.mu.Unlock()
	if ok {
		return raw
	}
	b, _ := json.Marshal(&id)
	return b
}

// release ends a remapping (the request has been answered) and returns the
// id as the client wrote it.
func (t *idTable) release(id jsonrpc2.ID) json.RawMessage {
	raw := t.wire(id)
	t.mu.Lock()
	delete(t.original, id)
	t.mu.Unlock()
	return raw
}

// key is the requestKey of a request id as the stream delivered it.
func (t *idTable) key(id jsonrpc2.ID) requestKey {
	return keyOf(t.wire(id))
}
