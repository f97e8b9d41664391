package grammar

import "testing"

func TestReadDateTime(t *testing.T) {
	for _, tc := range []struct {
		in            string
		shaped, valid bool
	}{
		{"2024-02-29T23:59:59Z", true, true},
		{"2023-02-29T00:00:00", true, false}, // not a leap year
		{"2000-02-29T00:00:00", true, true},  // divisible by 400
		{"1900-02-29T00:00:00", true, false}, // by 100 only
		{"2024-04-31T00:00:00", true, false},
		{"2024-13-01T00:00:00", true, false},
		{"2024-00-01T00:00:00", true, false},
		{"2024-01-00T00:00:00", true, false},
		{"2024-01-01T24:00:00", true, false},
		{"2024-01-01T00:60:00", true, false},
		{"2024-01-01T00:00:60", true, false},
		{"2024-01-01 00:00:00", false, false},
		{"2024-1-01T00:00:00Z", false, false},
		{"2024-01-01T00:00:0", false, false},
	} {
		dt, shaped := ReadDateTime([]byte(tc.in))
		if shaped != tc.shaped || shaped && dt.Valid() != tc.valid {
			t.Errorf("%s: shaped %v valid %v (%+v)", tc.in, shaped, dt.Valid(), dt)
		}
	}
	if dt, _ := ReadDateTime([]byte("2025-06-07T08:09:10.5Z")); dt != (DateTime{2025, 6, 7, 8, 9, 10}) {
		t.Errorf("%+v", dt)
	}
}
