package report

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
)

// writeJSON writes d as json.Marshal does (HTML characters escaped), but
// without making the whole text first: field by field, the lists element
// by element, and the columns of numbers (the calls, the times) number by
// number. The page of a session with millions of calls is written with no
// more memory than its data. The fields are read by reflection, so that a
// field added to Data is written like the others; TestWriteJSONIsMarshal
// and FuzzInsight hold the two equal.
func writeJSON(w *bufio.Writer, d *Data) error {
	return writeStruct(w, reflect.ValueOf(d).Elem())
}

// streamed are the structs written field by field: those that hold
// columns.
var streamed = map[reflect.Type]bool{reflect.TypeFor[Data](): true, reflect.TypeFor[Calls](): true, reflect.TypeFor[Times](): true}

func writeValue(w *bufio.Writer, v reflect.Value) error {
	if ok, err := writeNumbers(w, v); ok {
		return err
	}
	switch {
	case streamed[v.Type()]:
		return writeStruct(w, v)
	case v.Kind() == reflect.Slice && !v.IsNil() && v.Type().Elem().Kind() == reflect.Struct:
		w.WriteByte('[')
		for i := range v.Len() {
			if i > 0 {
				w.WriteByte(',')
			}
			if err := writeMarshaled(w, v.Index(i)); err != nil {
				return err
			}
		}
		return w.WriteByte(']')
	}
	return writeMarshaled(w, v)
}

func writeMarshaled(w *bufio.Writer, v reflect.Value) error {
	b, err := json.Marshal(v.Interface())
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// writeStruct writes a struct: its exported fields in order, under their
// json names, without the empty ones marked omitempty.
func writeStruct(w *bufio.Writer, v reflect.Value) error {
	t := v.Type()
	w.WriteByte('{')
	first := true
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		if f.Anonymous {
			return fmt.Errorf("report: writeJSON does not write embedded field %s.%s", t.Name(), f.Name)
		}
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case name == "-" && opts == "":
			continue
		case name == "":
			name = f.Name
		}
		fv := v.Field(i)
		if opts != "" {
			if opts != "omitempty" {
				return fmt.Errorf("report: writeJSON does not write the json option %q of %s.%s", opts, t.Name(), f.Name)
			}
			if isEmptyValue(fv) {
				continue
			}
		}
		if !first {
			w.WriteByte(',')
		}
		first = false
		key, _ := json.Marshal(name)
		w.Write(key)
		w.WriteByte(':')
		if err := writeValue(w, fv); err != nil {
			return err
		}
	}
	return w.WriteByte('}')
}

// isEmptyValue is encoding/json's test for omitempty.
func isEmptyValue(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64,
		reflect.Interface, reflect.Pointer:
		return v.IsZero()
	}
	return false
}

// writeNumbers writes a slice of numbers, the data's columns; ok is false
// for any other value.
func writeNumbers(w *bufio.Writer, v reflect.Value) (ok bool, err error) {
	if v.Kind() != reflect.Slice || !v.CanInterface() {
		return false, nil
	}
	var buf [32]byte
	put := func(i int, b []byte) {
		if i > 0 {
			w.WriteByte(',')
		}
		w.Write(b)
	}
	open := func(isNil bool) bool {
		if isNil {
			w.WriteString("null")
			return false
		}
		w.WriteByte('[')
		return true
	}
	switch s := v.Interface().(type) {
	case []int32:
		if open(s == nil) {
			for i, n := range s {
				put(i, strconv.AppendInt(buf[:0], int64(n), 10))
			}
		}
	case []int8:
		if open(s == nil) {
			for i, n := range s {
				put(i, strconv.AppendInt(buf[:0], int64(n), 10))
			}
		}
	case []int:
		if open(s == nil) {
			for i, n := range s {
				put(i, strconv.AppendInt(buf[:0], int64(n), 10))
			}
		}
	case []uint64:
		if open(s == nil) {
			for i, n := range s {
				put(i, strconv.AppendUint(buf[:0], n, 10))
			}
		}
	case []float64:
		if open(s == nil) {
			for i, f := range s {
				b, err := appendFloat(buf[:0], f)
				if err != nil {
					return true, err
				}
				put(i, b)
			}
		}
	default:
		return false, nil
	}
	if !v.IsNil() {
		return true, w.WriteByte(']')
	}
	return true, nil
}

// appendFloat appends f as encoding/json writes a float64.
func appendFloat(b []byte, f float64) ([]byte, error) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return b, &json.UnsupportedValueError{Value: reflect.ValueOf(f), Str: strconv.FormatFloat(f, 'g', -1, 64)}
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
