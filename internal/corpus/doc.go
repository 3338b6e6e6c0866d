// Package corpus reads the peer corpus: command lines that other guards test with, labelled
// dangerous or benign (testdata/peer-corpus, whose README names each source repository and
// commit). Its test scores ctxguard's parser and destructive rules against them, so that a change
// that lets a known dangerous line through, or blocks a known benign one, fails CI; the fuzz
// targets of other packages seed from them.
package corpus
