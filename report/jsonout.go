package report

import (
	"bufio"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/rlog-ls/rlog-ls/internal/jsonnum"
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
	w.WriteByte('{')
	first := true
	if err := writeFields(w, v, &first); err != nil {
		return err
	}
	return w.WriteByte('}')
}

// writeFields writes the fields of struct v, and those of the structs it
// embeds in their place (the parts the session documents share), as
// encoding/json does when their names do not clash; first is false once
// a field is written.
func writeFields(w *bufio.Writer, v reflect.Value, first *bool) error {
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous && f.Type.Kind() == reflect.Struct && f.IsExported() && f.Tag.Get("json") == "" {
			if err := writeFields(w, v.Field(i), first); err != nil {
				return err
			}
			continue
		}
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
		if !*first {
			w.WriteByte(',')
		}
		*first = false
		key, _ := json.Marshal(name)
		w.Write(key)
		w.WriteByte(':')
		if err := writeValue(w, fv); err != nil {
			return err
		}
	}
	return nil
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
	switch s := v.Interface().(type) {
	case []int32:
		return true, writeInts(w, s)
	case []int8:
		return true, writeInts(w, s)
	case []int:
		return true, writeInts(w, s)
	case []uint64:
		return true, writeList(w, s, func(b []byte, n uint64) ([]byte, error) { return strconv.AppendUint(b, n, 10), nil })
	case []float64:
		return true, writeList(w, s, jsonnum.AppendFloat)
	}
	return false, nil
}

func writeInts[N int8 | int32 | int](w *bufio.Writer, s []N) error {
	return writeList(w, s, func(b []byte, n N) ([]byte, error) { return strconv.AppendInt(b, int64(n), 10), nil })
}

// writeList writes a list of numbers, each appended by put, or null for
// a nil slice.
func writeList[N any](w *bufio.Writer, s []N, put func([]byte, N) ([]byte, error)) error {
	if s == nil {
		_, err := w.WriteString("null")
		return err
	}
	var buf [32]byte
	w.WriteByte('[')
	for i, n := range s {
		if i > 0 {
			w.WriteByte(',')
		}
		b, err := put(buf[:0], n)
		if err != nil {
			return err
		}
		w.Write(b)
	}
	return w.WriteByte(']')
}
