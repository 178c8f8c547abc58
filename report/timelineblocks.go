package report

// timelineBlock is how many entries one block of a collector's timeline
// holds: 127 entries of 160 bytes, 20,320 bytes, which with the 8-byte
// header of an object holding pointers fits the 20,480-byte size class
// (128 would take the 21,760-byte one, 6% of it unused). The timeline
// grows a block at a time and never moves what it holds: as one slice
// grown by append it was copied into fresh memory at each doubling (to
// 1.6 MB for the default 10,000 entries), and the report's collector
// took up to 0.5 ms over a chunk of 32 results that grew it
// (BENCHMARKS.md, issue 24, ninth round).
const timelineBlock = 127

// timelineBlocks is a collector's timeline entries, in order, in blocks
// of at most timelineBlock.
type timelineBlocks struct {
	blocks [][]timelineItem
	n      int
}

func (t *timelineBlocks) len() int { return t.n }

// add appends it; limit is the most entries the timeline keeps, so that
// the last block is made no larger than it needs.
func (t *timelineBlocks) add(it timelineItem, limit int) {
	last := len(t.blocks) - 1
	if last < 0 || len(t.blocks[last]) == cap(t.blocks[last]) {
		t.blocks = append(t.blocks, make([]timelineItem, 0, max(min(timelineBlock, limit-t.n), 1)))
		last++
	}
	t.blocks[last] = append(t.blocks[last], it)
	t.n++
}

// prefault makes the first block of an empty timeline now and writes
// all of it, so that the kernel maps its pages before the first entries
// are added (Collector.Prefault). Nothing for a timeline of no entries.
func (t *timelineBlocks) prefault(limit int) {
	if len(t.blocks) > 0 || limit <= 0 {
		return
	}
	b := make([]timelineItem, 0, min(timelineBlock, limit))
	clear(b[:cap(b)])
	t.blocks = append(t.blocks, b)
}

// each calls f with each entry and its index, in order.
func (t *timelineBlocks) each(f func(i int, it *timelineItem)) {
	i := 0
	for _, b := range t.blocks {
		for k := range b {
			f(i, &b[k])
			i++
		}
	}
}

// appendCapped adds o's entries to t up to limit and returns omitted
// increased by those that did not fit.
func (t *timelineBlocks) appendCapped(o *timelineBlocks, limit int, omitted int64) int64 {
	o.each(func(_ int, it *timelineItem) {
		if t.n < limit {
			t.add(*it, limit)
		} else {
			omitted++
		}
	})
	return omitted
}
