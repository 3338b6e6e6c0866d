// Package diff prints the difference between two versions of a file as a unified diff, the
// format every reader of `git diff` knows. `ctxguard install --dry-run` uses it to show what it
// would write into a harness's settings before it writes anything.
//
// The files it compares are configuration files of a few hundred lines at most, so the longest
// common subsequence is found with the plain quadratic table; two files too large for that are
// shown as one hunk that replaces the whole file.
package diff

import (
	"fmt"
	"strings"
)

// context is how many unchanged lines surround a change, as in diff -u.
const context = 3

// maxCells bounds the table: beyond it the diff is one hunk.
const maxCells = 4 << 20

// Unified returns the unified diff that turns a (named oldName) into b (named newName); "" when
// they are equal. A file that does not end with a newline is marked as diff marks it.
func Unified(oldName, newName string, a, b []byte) string {
	if string(a) == string(b) {
		return ""
	}
	x, y := lines(string(a)), lines(string(b))
	ops := script(x, y)
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", oldName, newName)
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			i++
			continue
		}
		// A hunk runs from context lines before this change to context lines after the last
		// change that is at most 2*context unchanged lines further on.
		start := max(i-context, 0)
		end := i
		for j := i; j < len(ops); j++ {
			if ops[j].kind != ' ' {
				end = j
				continue
			}
			if j-end > 2*context {
				break
			}
		}
		stop := min(end+context+1, len(ops))
		hunk(&out, ops[start:stop])
		i = stop
	}
	return out.String()
}

type op struct {
	kind       byte // ' ', '-', '+'
	text       string
	aLine, bLn int // 1-based line numbers in a and b before this op
}

func lines(s string) []string {
	if s == "" {
		return nil
	}
	ls := strings.SplitAfter(s, "\n")
	if ls[len(ls)-1] == "" {
		ls = ls[:len(ls)-1]
	}
	return ls
}

// script is the edit script from x to y, in order.
func script(x, y []string) []op {
	n, m := len(x), len(y)
	var ops []op
	ai, bi := 1, 1
	emit := func(k byte, t string) {
		ops = append(ops, op{k, t, ai, bi})
		switch k {
		case ' ':
			ai++
			bi++
		case '-':
			ai++
		case '+':
			bi++
		}
	}
	if (n+1)*(m+1) > maxCells {
		for _, l := range x {
			emit('-', l)
		}
		for _, l := range y {
			emit('+', l)
		}
		return ops
	}
	// lcs[i][j] is the length of the longest common subsequence of x[i:] and y[j:].
	lcs := make([][]int32, n+1)
	for i := range lcs {
		lcs[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if x[i] == y[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && x[i] == y[j]:
			emit(' ', x[i])
			i++
			j++
		case i < n && (j == m || lcs[i+1][j] >= lcs[i][j+1]):
			emit('-', x[i])
			i++
		default:
			emit('+', y[j])
			j++
		}
	}
	return ops
}

func hunk(out *strings.Builder, ops []op) {
	aStart, bStart := ops[0].aLine, ops[0].bLn
	aLen, bLen := 0, 0
	for _, o := range ops {
		if o.kind != '+' {
			aLen++
		}
		if o.kind != '-' {
			bLen++
		}
	}
	fmt.Fprintf(out, "@@ -%s +%s @@\n", span(aStart, aLen), span(bStart, bLen))
	for _, o := range ops {
		out.WriteByte(o.kind)
		out.WriteString(strings.TrimSuffix(o.text, "\n"))
		out.WriteByte('\n')
		if !strings.HasSuffix(o.text, "\n") {
			out.WriteString("\\ No newline at end of file\n")
		}
	}
}

// span writes a hunk range as diff does: "start,len", "start" alone for one line, and the line
// before for an empty range.
func span(start, n int) string {
	switch n {
	case 0:
		return fmt.Sprintf("%d,0", start-1)
	case 1:
		return fmt.Sprint(start)
	}
	return fmt.Sprintf("%d,%d", start, n)
}
