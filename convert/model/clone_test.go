package model

import (
	"encoding/json"
	"reflect"
	"testing"
)

// fillAll sets every field reachable from v to a value that is not zero:
// each pointer to a new value, each slice to one or two elements, so that a
// field added to Event later is filled too and Clone must copy it.
func fillAll(v reflect.Value, n *int) {
	*n++
	switch v.Kind() {
	case reflect.String:
		v.SetString("s" + string(rune('a'+*n%26)))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(*n))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(*n % 200))
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		fillAll(p.Elem(), n)
		v.Set(p)
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 2, 2)
		for i := 0; i < 2; i++ {
			fillAll(s.Index(i), n)
		}
		v.Set(s)
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			fillAll(v.Field(i), n)
		}
	default:
		panic("fillAll: no case for " + v.Kind().String())
	}
}

// shared reports the path of a pointer or slice array that a and b share.
func shared(a, b reflect.Value, path string) string {
	switch a.Kind() {
	case reflect.Pointer:
		if a.IsNil() {
			return ""
		}
		if a.Pointer() == b.Pointer() {
			return path
		}
		return shared(a.Elem(), b.Elem(), path)
	case reflect.Slice:
		if a.Len() == 0 {
			return ""
		}
		if a.Pointer() == b.Pointer() {
			return path
		}
		for i := 0; i < a.Len(); i++ {
			if p := shared(a.Index(i), b.Index(i), path+"[]"); p != "" {
				return p
			}
		}
	case reflect.Struct:
		for i := 0; i < a.NumField(); i++ {
			if p := shared(a.Field(i), b.Field(i), path+"."+a.Type().Field(i).Name); p != "" {
				return p
			}
		}
	}
	return ""
}

func TestCloneSharesNothingButStrings(t *testing.T) {
	var e Event
	n := 0
	fillAll(reflect.ValueOf(&e).Elem(), &n)
	c := e.Clone()
	if !reflect.DeepEqual(&e, c) {
		t.Fatalf("Clone changed the event:\n%+v\n%+v", e, *c)
	}
	if p := shared(reflect.ValueOf(&e).Elem(), reflect.ValueOf(c).Elem(), "Event"); p != "" {
		t.Fatalf("Clone shares %s with the event", p)
	}
}

func TestCloneKeepsNilAndEmptyApart(t *testing.T) {
	e := Event{Raw: json.RawMessage{}, Extra: Fields{{Key: "k", Value: json.RawMessage{}}}, Todos: []Todo{}, Call: &ToolCall{Input: nil}}
	c := e.Clone()
	if c.Raw == nil || len(c.Raw) != 0 || c.Extra[0].Value == nil || c.Todos == nil || c.Call.Input != nil || c.Parts != nil || c.Result != nil {
		t.Fatalf("Clone did not keep nil and empty apart: %#v", c)
	}
	var zero Event
	if z := zero.Clone(); !reflect.DeepEqual(&zero, z) {
		t.Fatalf("Clone of the zero event: %#v", z)
	}
}
