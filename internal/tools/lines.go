package tools

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
)

// sniffBytes is how much of a file decides whether it is text.
const sniffBytes = 8 << 10

// looksBinary reports whether the start of a file is not text: it holds a
// NUL byte or is not UTF-8 (a rune cut at the end of the sample is fine).
func looksBinary(head []byte) bool {
	if bytes.IndexByte(head, 0) >= 0 {
		return true
	}
	for i := 0; i < len(head); {
		r, size := utf8.DecodeRune(head[i:])
		if r == utf8.RuneError && size <= 1 {
			if len(head)-i < utf8.UTFMax && !utf8.FullRune(head[i:]) {
				return false // cut by the sample, not invalid
			}
			return true
		}
		i += size
	}
	return false
}

// pageLimits bound what one read returns.
type pageLimits struct {
	maxLines     int // lines
	maxBytes     int // bytes of line text
	maxLineBytes int // bytes of one line; longer lines are cut
}

// linePage is a run of a file's lines and what is known of the rest.
type linePage struct {
	lines []string // the lines' text, cut to maxLineBytes, without line ends
	cutBy []int    // bytes cut from each line's end (0: whole)
	first int      // 1-based number of lines[0]
	total int      // lines in the whole file
	// limited says the page stopped at maxLines or maxBytes before the
	// end that was asked for.
	limited bool
	crlf    bool // some line ended with \r\n
	binary  bool // the file is not text; nothing was read
}

// last is the number of the last line of the page (first-1 when empty).
func (p linePage) last() int { return p.first + len(p.lines) - 1 }

// readPage reads lines start..end (1-based, inclusive; end 0 means to the
// end of the file) of r within lim, then counts the remaining lines without
// keeping them, so memory stays bounded by the page whatever the file's
// size. ctx is checked as it goes.
func readPage(ctx context.Context, r io.Reader, start, end int, lim pageLimits) (linePage, error) {
	pg := linePage{first: start}
	br := bufio.NewReaderSize(r, 64<<10)
	head, err := br.Peek(sniffBytes)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return pg, fmt.Errorf("read: %w", err)
	}
	if looksBinary(head) {
		pg.binary = true
		return pg, nil
	}
	var (
		n    int // complete lines read
		cur  []byte
		cut  int
		open bool
		size int
	)
	for {
		chunk, err := br.ReadSlice('\n')
		if len(chunk) > 0 {
			open = true
		}
		want := n+1 >= start && (end == 0 || n+1 <= end)
		eol := len(chunk) > 0 && chunk[len(chunk)-1] == '\n'
		body := chunk
		if eol {
			body = chunk[:len(chunk)-1]
		}
		if want {
			cur, cut = appendCut(cur, body, lim.maxLineBytes, cut)
		}
		if eol {
			n++
			open = false
			if want {
				if !pg.fits(cur, size, lim) {
					pg.limited = true
					break
				}
				size += pg.add(&cur, &cut)
			}
			if n%4096 == 0 && ctx.Err() != nil {
				return pg, ctx.Err()
			}
			if (end != 0 && n >= end) || len(pg.lines) >= lim.maxLines {
				pg.limited = end == 0 || n < end
				break
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if errors.Is(err, io.EOF) {
			if open {
				n++
				if want {
					if pg.fits(cur, size, lim) {
						pg.add(&cur, &cut)
					} else {
						pg.limited = true
					}
				}
			}
			pg.total = n
			return pg, nil
		}
		if err != nil {
			return pg, fmt.Errorf("read line %d: %w", n+1, err)
		}
	}
	rest, err := countLines(ctx, br)
	if err != nil {
		return pg, err
	}
	pg.total = n + rest
	if pg.total <= pg.last() {
		pg.limited = false
	}
	return pg, nil
}

// fits reports whether a line of the page stays within maxBytes; the
// first line always does, so a page is never empty.
func (p *linePage) fits(cur []byte, size int, lim pageLimits) bool {
	return len(p.lines) == 0 || size+len(cur)+1 <= lim.maxBytes
}

// add appends the current line to the page, dropping a \r before its end,
// and returns its size.
func (p *linePage) add(cur *[]byte, cut *int) int {
	line := *cur
	if len(line) > 0 && line[len(line)-1] == '\r' && *cut == 0 {
		line = line[:len(line)-1]
		p.crlf = true
	}
	p.lines = append(p.lines, string(bytes.ToValidUTF8(line, []byte("\uFFFD"))))
	p.cutBy = append(p.cutBy, *cut)
	*cur, *cut = (*cur)[:0], 0
	return len(line) + 1
}

// appendCut appends p to dst up to limit bytes, cut on a rune boundary,
// counting what did not fit in cut.
func appendCut(dst, p []byte, limit, cut int) ([]byte, int) {
	room := limit - len(dst)
	if cut > 0 || room <= 0 {
		return dst, cut + len(p)
	}
	if len(p) <= room {
		return append(dst, p...), cut
	}
	for room > 0 && !utf8.RuneStart(p[room]) {
		room--
	}
	return append(dst, p[:room]...), cut + len(p) - room
}

// countLines counts the lines left in br, which is at a line start.
func countLines(ctx context.Context, br *bufio.Reader) (int, error) {
	buf := make([]byte, 256<<10)
	lines, tail := 0, false
	for i := 0; ; i++ {
		k, err := br.Read(buf)
		if k > 0 {
			lines += bytes.Count(buf[:k], []byte{'\n'})
			tail = buf[k-1] != '\n'
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return 0, fmt.Errorf("count lines: %w", err)
		}
		if i%64 == 63 && ctx.Err() != nil {
			return 0, ctx.Err()
		}
	}
	if tail {
		lines++
	}
	return lines, nil
}
