package grammar

import "encoding/binary"

// DateTime is the date and time an ISO 8601 timestamp starts with,
// YYYY-MM-DDTHH:MM:SS, as its digits say: ReadDateTime reads it in place.
// The ts= rule and the ccusage model's reading of a timestamp, which differ
// in what may follow it, share it.
type DateTime struct {
	Year, Month, Day, Hour, Minute, Second int
}

// ReadDateTime reads the first 19 bytes of b as YYYY-MM-DDTHH:MM:SS;
// shaped is false when they do not have that shape. It reads them as three
// words (bytes 0-7, 8-15 and 11-18) and tests each against its shape at
// once (dateTimeShapes); every ts= of a document comes through here.
// FuzzReadDateTime holds it equal to reading the bytes one by one.
func ReadDateTime(b []byte) (dt DateTime, shaped bool) {
	if len(b) < len("YYYY-MM-DDTHH:MM:SS") {
		return DateTime{}, false
	}
	var y [3]uint64 // each word's bytes: a digit's value, or 0 for its separator
	for i, at := range [3]int{0, 8, 11} {
		s := &dateTimeShapes[i]
		y[i] = binary.LittleEndian.Uint64(b[at:]) ^ s.xor
		if (y[i]|(y[i]+s.add))&0xF0F0F0F0F0F0F0F0 != 0 {
			return DateTime{}, false
		}
	}
	d := func(w uint64, i int) int { return int(w >> (8 * i) & 0xF) }
	return DateTime{
		Year:   d(y[0], 0)*1000 + d(y[0], 1)*100 + d(y[0], 2)*10 + d(y[0], 3),
		Month:  d(y[0], 5)*10 + d(y[0], 6),
		Day:    d(y[1], 0)*10 + d(y[1], 1),
		Hour:   d(y[1], 3)*10 + d(y[1], 4),
		Minute: d(y[1], 6)*10 + d(y[1], 7),
		Second: d(y[2], 6)*10 + d(y[2], 7),
	}, true
}

// dateTimeShapes are the three words of YYYY-MM-DDTHH:MM:SS that
// ReadDateTime reads. xor makes a digit its value (0-9) and the separator
// the word expects 0; adding add (6 to a digit, 15 to a separator) then
// carries into the high half of the byte of anything else, whose high half
// is not already set (a byte from 0xF1 up, which may carry into the next,
// has it set).
var dateTimeShapes = func() (w [3]struct{ xor, add uint64 }) {
	for i, shape := range [3]string{"dddd-dd-", "ddTdd:dd", "dd:dd:dd"} {
		for j := range 8 {
			xor, add := uint64(shape[j]), uint64(0x0F)
			if shape[j] == 'd' {
				xor, add = '0', 6
			}
			w[i].xor |= xor << (8 * j)
			w[i].add |= add << (8 * j)
		}
	}
	return w
}()

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
