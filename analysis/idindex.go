package analysis

import "hash/maphash"

// idIndex numbers the distinct call ids of a document in the order they
// are first seen, for what reads a document once and must remember every
// id (StreamChecker's facts, the count of unique ids): exactly (an id's
// bytes are kept and compared, not only its hash), and in memory the
// garbage collector does not scan, there being no pointer in it but one per
// block of bytes. About 16 bytes an id and its bytes, where a Go map of
// strings takes about 50 and a pointer to scan per id.
//
// The ids' bytes are in blocks, in the order of their numbers: an id ends
// where the next one starts, or at the end of its block.
type idIndex struct {
	slots  []uint32 // 1 + an id's number, 0 for an empty slot; a power of two long
	hashes []uint32 // per id, the low bits of its hash (for growing the table)
	places []idPlace
	blocks [][]byte // the ids' bytes; an id is in one block
}

// idPlace is where an id's bytes start: its block, and the offset in it.
type idPlace struct{ block, start uint32 }

// idBlockSize is the size of a block of ids' bytes (an id longer than that
// has a block of its own).
const idBlockSize = 64 << 10

var idSeed = maphash.MakeSeed()

// Len is the number of ids.
func (ix *idIndex) Len() int { return len(ix.places) }

// idNumber returns id's number, numbering it when it is new (added).
func idNumber[S ~string | ~[]byte](ix *idIndex, id S) (k int32, added bool) {
	return idNumberHashed(ix, id, hashID(id))
}

// idNumberHashed is idNumber of an id whose hash, hashID(id), is h: the
// StreamChecker's ids are hashed with their window's summaries, on every
// core, before it numbers them in file order.
func idNumberHashed[S ~string | ~[]byte](ix *idIndex, id S, h uint32) (k int32, added bool) {
	if 4*(len(ix.places)+1) > 3*len(ix.slots) {
		ix.grow()
	}
	mask := uint32(len(ix.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := ix.slots[i]
		if s == 0 {
			k = int32(len(ix.places))
			ix.slots[i] = uint32(k) + 1
			ix.hashes = append(ix.hashes, h)
			ix.places = append(ix.places, storeID(ix, id))
			return k, true
		}
		if ix.hashes[s-1] == h && string(ix.bytes(int32(s-1))) == string(id) {
			return int32(s - 1), false
		}
	}
}

// idLookup returns id's number, if it has one.
func idLookup[S ~string | ~[]byte](ix *idIndex, id S) (int32, bool) {
	if len(ix.slots) == 0 {
		return 0, false
	}
	h := hashID(id)
	mask := uint32(len(ix.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := ix.slots[i]
		if s == 0 {
			return 0, false
		}
		if ix.hashes[s-1] == h && string(ix.bytes(int32(s-1))) == string(id) {
			return int32(s - 1), true
		}
	}
}

func hashID[S ~string | ~[]byte](id S) uint32 {
	return uint32(maphash.String(idSeed, string(id)))
}

// bytes are the bytes of id number k.
func (ix *idIndex) bytes(k int32) []byte {
	p := ix.places[k]
	b := ix.blocks[p.block]
	end := uint32(len(b))
	if int(k)+1 < len(ix.places) && ix.places[k+1].block == p.block {
		end = ix.places[k+1].start
	}
	return b[p.start:end]
}

// storeID copies an id's bytes into the blocks.
func storeID[S ~string | ~[]byte](ix *idIndex, id S) idPlace {
	n := len(ix.blocks) - 1
	if n < 0 || cap(ix.blocks[n])-len(ix.blocks[n]) < len(id) {
		// The first blocks are small (a small log has few ids), each twice
		// the one before up to idBlockSize.
		size := 1 << 10
		if n >= 0 {
			size = min(2*cap(ix.blocks[n]), idBlockSize)
		}
		ix.blocks = append(ix.blocks, make([]byte, 0, max(size, len(id))))
		n++
	}
	b := ix.blocks[n]
	ix.blocks[n] = append(b, id...)
	return idPlace{block: uint32(n), start: uint32(len(b))}
}

func (ix *idIndex) grow() {
	ix.slots = make([]uint32, max(2*len(ix.slots), 1024))
	mask := uint32(len(ix.slots) - 1)
	for k, h := range ix.hashes {
		i := h & mask
		for ix.slots[i] != 0 {
			i = (i + 1) & mask
		}
		ix.slots[i] = uint32(k) + 1
	}
}

// chunkIDTable finds one chunk summary's call ids by name: open addressing
// over the summary's list of ids, each slot 1 + an id's index (0 for an
// empty slot), a power of two at least twice the ids long. A chunk has a
// few dozen ids: the table is a few hundred bytes without a pointer, made
// once at its size from the hashes the summary took as it read them,
// where a Go map of strings per chunk took about a kilobyte and hashed
// every id again.
type chunkIDTable struct{ slots []int32 }

// find returns the index of name among names, the ids the table was
// made for.
func (t chunkIDTable) find(names []string, name string) (int32, bool) {
	if len(t.slots) == 0 {
		return 0, false
	}
	mask := uint32(len(t.slots) - 1)
	for i := chunkIDHash(name) & mask; ; i = (i + 1) & mask {
		s := t.slots[i]
		if s == 0 {
			return 0, false
		}
		if names[s-1] == name {
			return s - 1, true
		}
	}
}

// idTableScratch numbers a chunk's ids while it is summarised, and keeps
// their hashes for the chunk's table and their bytes for its list of ids;
// it is reused from chunk to chunk.
type idTableScratch struct {
	slots  []int32 // as chunkIDTable's
	hashes []uint32
	bytes  []byte  // the ids, one after the other
	ends   []int32 // where each id ends in bytes
}

// reset empties the table for a chunk of n lines (at most one id a line).
func (t idTableScratch) reset(n int) idTableScratch {
	size := idTableSize(n)
	if cap(t.slots) < size {
		t.slots = make([]int32, size)
	} else {
		t.slots = t.slots[:size]
		clear(t.slots)
	}
	t.hashes, t.bytes, t.ends = t.hashes[:0], t.bytes[:0], t.ends[:0]
	return t
}

// idTableSize is the number of slots for n ids.
func idTableSize(n int) int {
	size := 8
	for size < 2*n {
		size *= 2
	}
	return size
}

// number returns the index of id among the ids numbered so far, numbering
// it when it is new (added).
func (t *idTableScratch) number(id []byte) (k int32, added bool) {
	if 2*(len(t.hashes)+1) > len(t.slots) {
		t.rehash(idTableSize(len(t.hashes) + 1))
	}
	h := chunkIDHash(id)
	mask := uint32(len(t.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := t.slots[i]
		if s == 0 {
			k = int32(len(t.hashes))
			t.slots[i] = k + 1
			t.hashes = append(t.hashes, h)
			t.bytes = append(t.bytes, id...)
			t.ends = append(t.ends, int32(len(t.bytes)))
			return k, true
		}
		if t.hashes[s-1] == h && string(t.id(s-1)) == string(id) {
			return s - 1, false
		}
	}
}

// id is the bytes of id k.
func (t *idTableScratch) id(k int32) []byte {
	start := int32(0)
	if k > 0 {
		start = t.ends[k-1]
	}
	return t.bytes[start:t.ends[k]]
}

// names are the ids numbered, in order: parts of one string, made with
// one allocation for the chunk where a string for each id took one each
// (most of those made to open a document).
func (t *idTableScratch) names() []string {
	if len(t.ends) == 0 {
		return nil
	}
	all := string(t.bytes)
	names := make([]string, len(t.ends))
	start := int32(0)
	for k, end := range t.ends {
		names[k] = all[start:end]
		start = end
	}
	return names
}

// rehash puts the ids into size slots.
func (t *idTableScratch) rehash(size int) {
	t.slots = placeIDs(make([]int32, size), t.hashes)
}

// sized is the table of the ids numbered, at their size.
func (t *idTableScratch) sized() chunkIDTable {
	if len(t.hashes) == 0 {
		return chunkIDTable{}
	}
	return chunkIDTable{placeIDs(make([]int32, idTableSize(len(t.hashes))), t.hashes)}
}

// placeIDs puts the ids whose hashes are hashes into the empty slots.
func placeIDs(slots []int32, hashes []uint32) []int32 {
	mask := uint32(len(slots) - 1)
	for k, h := range hashes {
		i := h & mask
		for slots[i] != 0 {
			i = (i + 1) & mask
		}
		slots[i] = int32(k) + 1
	}
	return slots
}

// chunkIDHash is the hash of an id in a chunk's table: eight bytes at a
// time, multiplied and folded, inlined where maphash is a call into the
// runtime that cost a chunk's summary more than the rest of an id's
// numbering. It is not seeded: ids that collide on purpose cost a chunk
// at most its lines squared (a chunk has at most 128), never the
// document's ids squared (the document's idIndex keeps maphash).
func chunkIDHash[S ~string | ~[]byte](id S) uint32 {
	const m = 0x9E3779B97F4A7C15
	h := uint64(len(id)) * m
	for len(id) >= 8 {
		w := uint64(id[0]) | uint64(id[1])<<8 | uint64(id[2])<<16 | uint64(id[3])<<24 |
			uint64(id[4])<<32 | uint64(id[5])<<40 | uint64(id[6])<<48 | uint64(id[7])<<56
		h = (h ^ w) * m
		h ^= h >> 32
		id = id[8:]
	}
	var w uint64
	for i := range len(id) {
		w |= uint64(id[i]) << (8 * i)
	}
	h = (h ^ w) * m
	return uint32(h>>32 ^ h)
}
