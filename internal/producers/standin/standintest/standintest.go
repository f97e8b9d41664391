// Package standintest is what the API stand-ins' tests share: a stand-in
// started for one test and a request posted to it.
package standintest

import (
	"net/http"
	"strings"
	"testing"
)

// Start starts a stand-in serving rules with start (a vendor package's
// Start), closed when the test ends, or fails t.
func Start[S interface{ Close() error }, Rule any](t testing.TB, start func([]Rule) (S, error), rules []Rule) S {
	t.Helper()
	s, err := start(rules)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// Post posts a JSON body to url with header, or fails t; the response's
// body is closed when the test ends.
func Post(t testing.TB, url, body string, header map[string]string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}
