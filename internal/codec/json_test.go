package codec

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"
	"unicode/utf8"
)

// TestAppendString compares the JSON string writer with encoding/json on the characters that
// are escaped and on random strings, valid UTF-8 or not.
func TestAppendString(t *testing.T) {
	cases := []string{"", "plain", `"\`, "\b\f\n\r\t\x00\x01\x1f \x7f", "\u2028\u2029\u2027\u202a", "é日本\U0001F600",
		"\xff", "a\xc0z", "\xe2\x80", "\xed\xa0\x80", "\uFFFD", "<>&'", "$(az x) && `y`"}
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		b := make([]byte, r.IntN(24))
		for i := range b {
			b[i] = byte(r.IntN(256))
			if r.IntN(3) == 0 {
				b[i] &= 0x3f
			}
		}
		cases = append(cases, string(b))
	}
	for _, s := range cases {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
		want := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
		if got := AppendString(nil, s); !bytes.Equal(got, want) {
			t.Errorf("%q (valid %v):\n got %s\nwant %s", s, utf8.ValidString(s), got, want)
		}
	}
}
