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

// readDateTimeByteByByte is ReadDateTime reading each byte in turn: the
// reference FuzzReadDateTime holds it to.
func readDateTimeByteByByte(b []byte) (DateTime, bool) {
	const shape = "dddd-dd-ddTdd:dd:dd"
	if len(b) < len(shape) {
		return DateTime{}, false
	}
	for i := range len(shape) {
		if shape[i] == 'd' {
			if b[i] < '0' || b[i] > '9' {
				return DateTime{}, false
			}
		} else if b[i] != shape[i] {
			return DateTime{}, false
		}
	}
	num := func(i, n int) int {
		v := 0
		for _, c := range b[i : i+n] {
			v = v*10 + int(c-'0')
		}
		return v
	}
	return DateTime{num(0, 4), num(5, 2), num(8, 2), num(11, 2), num(14, 2), num(17, 2)}, true
}

// FuzzReadDateTime holds ReadDateTime, which tests the shape a word at a
// time, to reading each byte in turn.
func FuzzReadDateTime(f *testing.F) {
	for _, s := range []string{"2025-12-19T20:29:02Z", "9999-99-99T99:99:99", "0000-00-00T00:00:00", "2025-12-19t20:29:02",
		"2025-12-19T20:29:0", "2025-12-19T20:29:0:", "2025/12/19T20:29:02", "2025-12-19T20:29:02.5+01:00", "\xff025-12-19T20:29:02",
		"2025,12-19T20:29:02", "2025-12-19U20:29:02", "2025-12-19T20;29:02", "2025-12-19T20:29;02"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, gotOK := ReadDateTime(b)
		want, wantOK := readDateTimeByteByByte(b)
		if got != want || gotOK != wantOK {
			t.Fatalf("ReadDateTime(%q) = %+v %v, byte by byte %+v %v", b, got, gotOK, want, wantOK)
		}
	})
}
