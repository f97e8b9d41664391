package grammar

// DateTime is the date and time an ISO 8601 timestamp starts with,
// YYYY-MM-DDTHH:MM:SS, as its digits say: ReadDateTime reads it in place.
// The ts= rule and the ccusage model's reading of a timestamp, which differ
// in what may follow it, share it.
type DateTime struct {
	Year, Month, Day, Hour, Minute, Second int
}

// ReadDateTime reads the first 19 bytes of b as YYYY-MM-DDTHH:MM:SS;
// shaped is false when they do not have that shape.
func ReadDateTime(b []byte) (dt DateTime, shaped bool) {
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

// Valid says whether the date exists (leap years counted) and the time is
// in range: hours below 24, minutes and seconds below 60.
func (dt DateTime) Valid() bool {
	if dt.Month < 1 || dt.Month > 12 || dt.Day < 1 || dt.Day > DaysIn(dt.Year, dt.Month) {
		return false
	}
	return dt.Hour < 24 && dt.Minute < 60 && dt.Second < 60
}

// DaysIn is the number of days of month (1-12) of year, in the Gregorian
// calendar.
func DaysIn(year, month int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}
