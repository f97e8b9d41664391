// Package jsonnum writes numbers as encoding/json writes them, for the
// encoders that write JSON without it (the server's answers, the session
// view's columns): one home for the format of a float.
package jsonnum

import (
	"fmt"
	"math"
	"strconv"
)

// AppendFloat appends f as encoding/json (and segmentio) write a float64:
// the shortest decimal that reads back as f, in exponent form only below
// 1e-6 or from 1e21 on, with a two-digit exponent written without its
// leading zero. NaN and the infinities are an error, as they are for
// encoding/json.
func AppendFloat(b []byte, f float64) ([]byte, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return b, fmt.Errorf("json: unsupported value: %v", f)
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// e-09 is written e-9.
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, nil
}
