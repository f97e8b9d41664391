package lsp

import (
	"strconv"
	"strings"
	"testing"

	"github.com/rlog-ls/rlog-ls/lsp/lsptest"
)

// alive proves the connection still serves: a request gets its answer.
func alive(t *testing.T, c *lsptest.Client) {
	t.Helper()
	resp := c.RawRequest(`{"jsonrpc":"2.0","id":"alive","method":"toy/text","params":{"textDocument":{"uri":"file:///none"}}}`)
	lsptest.AssertJSON(t, resp.Body, `{"jsonrpc":"2.0","id":"alive","result":null}`)
}

// Undecodable frames get a ParseError with id null (jsonrpc2's own stream
// closes the connection instead: pitfall 7), and the connection serves on.
func TestBadFramesGetParseErrorAndConnectionSurvives(t *testing.T) {
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":1000,"method":"initialize"`,
		`not json at all`,
		``,
		`{"jsonrpc":"2.0","id":1000,"method":"x"} trailing`,
		"\xff\xfe",
	} {
		c := startInitialized(t)
		c.SendRaw(body)
		resp := c.WaitResponse(`null`)
		if resp.Error == nil || resp.Error.Code != -32700 {
			t.Fatalf("%q: got %s", body, resp.Body)
		}
		alive(t, c)
	}
}

// JSON that is not a request object is InvalidRequest, with the request's
// id when it has a usable one.
func TestInvalidRequests(t *testing.T) {
	for _, tc := range []struct{ body, id string }{
		{`[1,2]`, `null`},
		{`5`, `null`},
		{`{"jsonrpc":"1.0","id":1000,"method":"toy/text"}`, `1000`},
		{`{"jsonrpc":"2.0","id":"s","method":42}`, `"s"`},
		{`{"jsonrpc":"2.0","id":{"a":1},"method":"toy/text"}`, `null`},
		{`{"jsonrpc":"2.0","id":[1],"method":"toy/text"}`, `null`},
	} {
		c := startInitialized(t)
		c.SendRaw(tc.body)
		resp := c.WaitResponse(tc.id)
		if resp.Error == nil || resp.Error.Code != -32600 {
			t.Fatalf("%s: got %s", tc.body, resp.Body)
		}
		alive(t, c)
	}
}

// Every id JSON-RPC allows comes back exactly as sent, including those
// jsonrpc2 v0.10.0 cannot represent (above 2^31-1, null, "", fractions) and
// a client string that looks like our internal ids.
func TestRequestIDsComeBackAsSent(t *testing.T) {
	c := startInitialized(t)
	for _, id := range []string{
		`7`, `0`, `-5`, `2147483647`, `2147483648`, `3000000000`, `-3000000000`, `9007199254740993`,
		`1.5`, `-0`, `1e3`, `null`, `""`, `"abc"`, `"\u0000rlog-ls#1"`, `"é😀"`,
	} {
		c.SendRaw(`{"jsonrpc":"2.0","id":` + id + `,"method":"toy/text","params":{"textDocument":{"uri":"file:///none"}}}`)
		// WaitResponse compares ids as written: 1e3 does not match 1000.
		resp := c.WaitResponse(id)
		if resp.Error != nil || string(resp.Result) != "null" {
			t.Errorf("id %s: got %s", id, resp.Body)
		}
	}
	alive(t, c)
}

// Framing errors: the reader skips to the next "Content-Length:" and serves
// what follows.
func TestBrokenHeadersResync(t *testing.T) {
	good := `{"jsonrpc":"2.0","id":"after","method":"toy/text","params":{"textDocument":{"uri":"file:///none"}}}`
	frame := func(body string) string { return "Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body }
	for name, garbage := range map[string]string{
		"no header at all":        `{"jsonrpc":"2.0","id":1,"method":"x"}` + "\r\n",
		"header without colon":    "Content-Length 12\r\n\r\n{}",
		"non-numeric length":      "Content-Length: twelve\r\n\r\n{}",
		"negative length":         "Content-Length: -1\r\n\r\n{}",
		"missing Content-Length":  "Content-Type: application/json\r\n\r\n{\"jsonrpc\":\"2.0\"}",
		"binary junk":             "\x00\x01\x02\xff garbage",
		"overlong header line":    strings.Repeat("x", 70<<10) + "\r\n",
		"junk resembling headers": "Content-Lengt",
	} {
		c := startInitialized(t)
		c.SendBytes([]byte(garbage + frame(good)))
		resp := c.WaitResponse(`"after"`)
		if resp.Error != nil {
			t.Errorf("%s: %s", name, resp.Body)
		}
		for _, f := range c.Frames() {
			if f.IsResponse() && string(f.ID) == "null" && (f.Error == nil || f.Error.Code != -32700) {
				t.Errorf("%s: the broken frame got %s", name, f.Body)
			}
		}
	}
}

// Extra headers, stray blank lines and lower-case header names are fine.
func TestLenientFraming(t *testing.T) {
	c := startInitialized(t)
	body := `{"jsonrpc":"2.0","id":"ok","method":"toy/text","params":{"textDocument":{"uri":"file:///none"}}}`
	c.SendBytes([]byte("\r\ncontent-length: " + strconv.Itoa(len(body)) + "\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n" + body))
	if resp := c.WaitResponse(`"ok"`); resp.Error != nil {
		t.Fatal(string(resp.Body))
	}
}

// A response from the client to an id we never used is dropped quietly.
func TestStrayResponsesAreDropped(t *testing.T) {
	c := startInitialized(t)
	c.SendRaw(`{"jsonrpc":"2.0","id":424242,"result":{"x":1}}`)
	c.SendRaw(`{"jsonrpc":"2.0","id":"nope","error":{"code":1,"message":"m"}}`)
	c.SendRaw(`{"jsonrpc":"2.0","id":null,"result":null}`)
	c.SendRaw(`{"jsonrpc":"2.0","id":3000000000,"result":1}`)
	alive(t, c)
	for _, f := range c.Frames() {
		if f.IsResponse() && string(f.ID) != `"alive"` && string(f.ID) != "1" {
			t.Errorf("a stray response was answered: %s", f.Body)
		}
	}
}
