package main

import (
	"slices"
	"testing"
)

func TestWords(t *testing.T) {
	tests := []struct {
		line string
		want []string // nil: refused
	}{
		{`ctxguard.exe hook --harness copilot`, []string{"ctxguard.exe", "hook", "--harness", "copilot"}},
		{`& 'C:\Users\First Last\go\bin\ctxguard.exe' hook`, []string{`C:\Users\First Last\go\bin\ctxguard.exe`, "hook"}},
		{`& "C:\Program Files\ctxguard\ctxguard.exe" hook`, []string{`C:\Program Files\ctxguard\ctxguard.exe`, "hook"}},
		{`& 'it''s' x`, []string{"it's", "x"}},
		{`"C:\Program Files\ctxguard\ctxguard.exe" hook --harness cursor`, nil}, // an expression, then a token
		{`'C:\a b\ctxguard.exe' hook`, nil},
		{`'C:\a b\ctxguard.exe'`, []string{`C:\a b\ctxguard.exe`}},
		{`ctxguard.exe hook; rm x`, nil},
		{`& "$env:USERPROFILE\ctxguard.exe" hook`, nil},
		{``, nil},
	}
	for _, tt := range tests {
		got, err := words(tt.line)
		if tt.want == nil {
			if err == nil {
				t.Errorf("words(%q) = %q, want an error", tt.line, got)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("words(%q) = %q, %v; want %q", tt.line, got, err, tt.want)
		}
	}
}
