package rlog

import (
	"reflect"
	"testing"
	"time"

	"github.com/segmentio/encoding/json"
)

func overlay(t *testing.T, s Settings, raw string) (Settings, error) {
	t.Helper()
	out, err := s.Overlay(json.RawMessage(raw))
	return out.(Settings), err
}

func TestSettingsOverlay(t *testing.T) {
	for _, tc := range []struct {
		name    string
		raw     string
		want    func(*Settings)
		wantErr bool
	}{
		{"outline", `{"outline":{"maxItems":10}}`, func(s *Settings) { s.Outline.MaxItems = 10 }, false},
		{"a negative cap is the default", `{"outline":{"maxItems":-1}}`, func(*Settings) {}, false},
		{"unknown keys are ignored", `{"future":{"x":1},"disabledCodes":["W001"],"outline":{"maxItems":3}}`, func(s *Settings) { s.Outline.MaxItems = 3 }, false},
		{"a wrong type is an error", `{"outline":{"maxItems":"many"}}`, func(*Settings) {}, true},
		{"severities", `{"severity":{"S001":"warning","w003":"Error"}}`, func(s *Settings) {
			s.Severity = map[string]string{"S001": "warning", "w003": "Error"}
		}, false},
		{"inlay hints", `{"inlayHints":{"latency":false,"gapThresholdSeconds":90.5}}`, func(s *Settings) {
			s.InlayHints.Latency = false
			s.InlayHints.GapThresholdSeconds = 90.5
		}, false},
		{"a gap threshold that is not positive is the default", `{"inlayHints":{"gaps":false,"gapThresholdSeconds":-1}}`, func(s *Settings) {
			s.InlayHints.Gaps = false
		}, false},
		{"an unknown level is an error and dropped", `{"severity":{"S001":"fatal","W003":"info"}}`, func(s *Settings) {
			s.Severity = map[string]string{"W003": "info"}
		}, true},
	} {
		got, err := overlay(t, DefaultSettings(), tc.raw)
		want := DefaultSettings()
		tc.want(&want)
		if (err != nil) != tc.wantErr || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: got %+v, %v; want %+v", tc.name, got, err, want)
		}
	}
}

// A severity map replaces the one before as a whole (a code the user
// removed goes back to its default), and never writes into it.
func TestSettingsSeverityReplaces(t *testing.T) {
	base, _ := overlay(t, DefaultSettings(), `{"severity":{"S001":"warning","W003":"error"}}`)
	next, err := overlay(t, base, `{"severity":{"W003":"hint"}}`)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(next.Severity, map[string]string{"W003": "hint"}) ||
		!reflect.DeepEqual(base.Severity, map[string]string{"S001": "warning", "W003": "error"}) {
		t.Fatalf("next %v, base %v", next.Severity, base.Severity)
	}
	// Not mentioned: kept.
	if same, _ := overlay(t, base, `{"outline":{"maxItems":3}}`); !reflect.DeepEqual(same.Severity, base.Severity) {
		t.Fatalf("%v", same.Severity)
	}
	_, err = overlay(t, base, `{"severity":{"S001":"loud"}}`)
	if err == nil || err.Error() != `rlog.severity: unknown level for S001: "loud" (error, warning, info or hint)` {
		t.Fatalf("%v", err)
	}
}

func TestGapThreshold(t *testing.T) {
	s, _ := overlay(t, DefaultSettings(), `{"inlayHints":{"gapThresholdSeconds":0.25}}`)
	if s.GapThreshold() != 250*time.Millisecond || DefaultSettings().GapThreshold() != time.Minute {
		t.Fatal(s.GapThreshold(), DefaultSettings().GapThreshold())
	}
	if z, _ := overlay(t, DefaultSettings(), `{"inlayHints":{"gapThresholdSeconds":0}}`); z.GapThreshold() != time.Minute {
		t.Fatal(z.GapThreshold())
	}
}
