package codec

import "strings"

// Suggest returns the word of known that word is most likely a misspelling of, or "" when none
// is close: a reader who wrote `alow` or `kubectll` is told the word they meant. Close is an
// edit distance (insertions, deletions, substitutions and swaps of two neighbours, case
// ignored) of 1 for words of up to four letters and 2 for longer ones, the bound under which
// the suggestions of git and cobra are right far more often than not.
func Suggest(word string, known []string) string {
	limit := 1
	if len([]rune(word)) > 4 {
		limit = 2
	}
	best, bestD := "", limit+1
	for _, k := range known {
		if k == word {
			return ""
		}
		if d := distance(strings.ToLower(word), strings.ToLower(k)); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

// distance is the optimal string alignment distance between a and b, counted in runes.
func distance(a, b string) int {
	s, t := []rune(a), []rune(b)
	// rows i-2, i-1 and i of the table.
	prev2 := make([]int, len(t)+1)
	prev := make([]int, len(t)+1)
	cur := make([]int, len(t)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(s); i++ {
		cur[0] = i
		for j := 1; j <= len(t); j++ {
			cost := 1
			if s[i-1] == t[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && s[i-1] == t[j-2] && s[i-2] == t[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(t)]
}

// DidYouMean is Suggest phrased for the end of a message (": did you mean `allow`?"), or "" when
// nothing is close.
func DidYouMean(word string, known []string) string {
	if s := Suggest(word, known); s != "" {
		return ": did you mean `" + s + "`?"
	}
	return ""
}
