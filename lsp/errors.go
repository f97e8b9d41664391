package lsp

import (
	"context"
	"errors"
	"fmt"
	"unicode/utf8"

	"go.lsp.dev/jsonrpc2"
)

// LSP error codes that jsonrpc2 v0.10.0 does not name.
const (
	codeRequestFailed    jsonrpc2.Code = -32803
	codeServerCancelled  jsonrpc2.Code = -32802
	codeContentModified  jsonrpc2.Code = -32801
	codeRequestCancelled jsonrpc2.Code = -32800
)

// maxErrorMessage bounds the text of an error reply. segmentio's decode
// errors quote the rest of the input, which can be a 100 MB document.
const maxErrorMessage = 300

// rpcError builds the only kind of error that reaches the wire: jsonrpc2
// v0.10.0 sends any other error with "code": 0 (pitfall 4).
func rpcError(code jsonrpc2.Code, format string, args ...any) *jsonrpc2.Error {
	return jsonrpc2.NewError(code, truncate(fmt.Sprintf(format, args...), maxErrorMessage))
}

// InvalidParams is the error for params that do not decode or make no sense.
func InvalidParams(format string, args ...any) error {
	return rpcError(jsonrpc2.InvalidParams, format, args...)
}

// RequestFailed is the error for a well-formed request the server could not
// carry out (LSP 3.17 RequestFailed).
func RequestFailed(format string, args ...any) error {
	return rpcError(codeRequestFailed, format, args...)
}

// ContentModified tells the client that the document changed under the
// request and the result would be stale.
func ContentModified() error {
	return rpcError(codeContentModified, "content modified")
}

// wireError turns any error a handler returns into a coded reply error. A
// *jsonrpc2.Error anywhere in the chain keeps its code; the message is the
// whole chain's, not only the inner one's (jsonrpc2 would drop the outer
// message). A cancelled context is RequestCancelled; anything else is an
// InternalError, never code 0.
func wireError(err error) *jsonrpc2.Error {
	if err == nil {
		return nil
	}
	var coded *jsonrpc2.Error
	switch {
	case errors.As(err, &coded):
		if coded == err {
			return coded
		}
		return jsonrpc2.NewError(coded.Code, truncate(err.Error(), maxErrorMessage))
	case errors.Is(err, context.Canceled):
		return rpcError(codeRequestCancelled, "request cancelled")
	default:
		return rpcError(jsonrpc2.InternalError, "%v", err)
	}
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
