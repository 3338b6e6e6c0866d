// Package corpus holds no code: its test scores ctxguard's parser and destructive rules against
// the command lines other guards test with (the peer corpus in ../shared/peer-corpus beside the
// clone), so that a change that lets a known dangerous line through, or blocks a known benign
// one, fails CI.
package corpus
