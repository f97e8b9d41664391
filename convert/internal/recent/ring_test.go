package recent

import (
	"strconv"
	"testing"
)

// FuzzRingMapAsMap holds RingMap to a Map of its cap: after each step of
// ops (each byte a Set, Get, Delete or Take of one of a few keys), every
// key's Get and Len answer the same.
func FuzzRingMapAsMap(f *testing.F) {
	f.Add(uint8(4), []byte("\x00\x40\x80\x01\x41\x81"))
	f.Add(uint8(1), []byte("\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x8a\x89\x88"))
	f.Add(uint8(16), []byte("\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10\x11\x81\x90\x8f"))
	f.Fuzz(checkRingMap)
}

// Every order of up to 20 keys set, then deleted in each order the
// results of tool calls come in (the latest first, the earliest first,
// every other one), for maps of 1 to 24 keys: more keys waiting than the
// ring holds, and than the map's cap, so that the map rotates.
func TestRingMapAsMap(t *testing.T) {
	for c := 1; c <= 24; c++ {
		for n := 1; n <= 20; n++ {
			var ops []byte
			for i := range n {
				ops = append(ops, byte(i%32))
			}
			for i := range n {
				ops = append(ops, byte(0x80|i%32), byte(0x40|i%32))
			}
			for i := n - 1; i >= 0; i-- {
				ops = append(ops, byte(i%32), byte(0x80|(n-1-i)%32))
			}
			for i := 0; i < n; i += 2 {
				ops = append(ops, byte(0x80|i%32), byte(i%32))
			}
			for i := range n { // taken, the earliest first, and set again
				ops = append(ops, byte(0xc0|i%32), byte(0xc0|i%32), byte(i%32))
			}
			checkRingMap(t, uint8(c-1), ops) // (a cap of c)
		}
	}
}

// checkRingMap runs ops on a RingMap and a Map of cap c: a byte's low
// five bits pick a key, its top two bits Set (0), Get (1), Delete (2) or
// Take (3: the Map's Get, then Delete); after each, every key is asked of
// both.
func checkRingMap(t *testing.T, c uint8, ops []byte) {
	t.Helper()
	capacity := int(c%32) + 1
	got, want := NewRingMap[int](capacity), New[int](capacity)
	for step, op := range ops {
		k := strconv.Itoa(int(op & 31))
		switch op >> 6 {
		case 0:
			got.Set(k, step)
			want.Set(k, step)
		case 1:
			g, gok := got.Get(k)
			w, wok := want.Get(k)
			if g != w || gok != wok {
				t.Fatalf("cap %d, step %d: Get(%s) = %d, %v; want %d, %v", capacity, step, k, g, gok, w, wok)
			}
		case 2:
			got.Delete(k)
			want.Delete(k)
		default:
			g, gok := got.Take(k)
			w, wok := want.Get(k)
			want.Delete(k)
			if g != w || gok != wok {
				t.Fatalf("cap %d, step %d: Take(%s) = %d, %v; want %d, %v", capacity, step, k, g, gok, w, wok)
			}
		}
		if got.Len() != want.Len() {
			t.Fatalf("cap %d, step %d: Len %d, want %d", capacity, step, got.Len(), want.Len())
		}
		for i := range 32 {
			k := strconv.Itoa(i)
			g, gok := got.Get(k)
			w, wok := want.Get(k)
			if g != w || gok != wok {
				t.Fatalf("cap %d, after step %d: Get(%s) = %d, %v; want %d, %v", capacity, step, k, g, gok, w, wok)
			}
		}
	}
}
