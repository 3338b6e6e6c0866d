package providers

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxguard/ctxguard/internal/testenv"
	"github.com/ctxguard/ctxguard/spec"
)

// TestReadStateSettle checks the re-reads of a file caught mid-write: a file that stays cut
// short is read again after each pause, and then reported with its name; a JSON file that stays
// empty gets every pause too, a YAML one only the first; good and missing files are read at once.
func TestReadStateSettle(t *testing.T) {
	dir := testenv.TempDir(t)
	var all time.Duration
	for _, d := range settle {
		all += d
	}
	timed := func(name, content string, format spec.Format) (time.Duration, bool, error) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		_, exists, err := readState(p, format, nil)
		return time.Since(start), exists, err
	}

	took, exists, err := timed("azureProfile.json", `{"subscriptions": [{"id": "1111`, "json")
	var se *StateError
	if !exists || !errors.As(err, &se) || se.File != filepath.Join(dir, "azureProfile.json") || !strings.Contains(err.Error(), "invalid JSON") {
		t.Fatalf("readState(cut short) = exists %v, %v; want a StateError naming the file", exists, err)
	}
	if took < all {
		t.Errorf("cut short: took %v, want the pauses of %v before giving up", took, settle)
	}
	if took > time.Second {
		t.Errorf("took %v: the retry is not bounded", took)
	}

	if took, exists, err = timed("empty.json", "", "json"); !exists || err != nil || took < all {
		t.Errorf("empty JSON: exists %v, %v after %v; want no error after every pause (%v)", exists, err, took, all)
	}
	if took, exists, err = timed("config", "", "yaml"); !exists || err != nil || took < settle[0] || took >= settle[0]+settle[1] {
		t.Errorf("empty YAML: exists %v, %v after %v; want no error after the first pause only (%v)", exists, err, took, settle[0])
	}

	// A good file and a missing one are not retried: a CLI that was never used has none.
	if took, _, err = timed("good.json", `{"subscriptions": []}`, "json"); err != nil || took >= settle[0] {
		t.Errorf("good file: %v after %v; want it read at once", err, took)
	}
	start := time.Now()
	if _, exists, err := readState(filepath.Join(dir, "missing.json"), "json", nil); exists || err != nil || time.Since(start) >= settle[0] {
		t.Fatalf("missing file: exists %v, %v after %v", exists, err, time.Since(start))
	}
}

// TestReadStateSettleRace writes the file while the reader waits: the re-read after a pause
// sees the finished write.
func TestReadStateSettleRace(t *testing.T) {
	p := filepath.Join(testenv.TempDir(t), "azureProfile.json")
	if err := os.WriteFile(p, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		time.Sleep(settle[0] + settle[1]/2)
		done <- os.WriteFile(p, []byte(`{"subscriptions": [{"id": "1111", "isDefault": true}]}`), 0o644)
	}()
	out, exists, err := readState(p, "json", nil)
	if werr := <-done; werr != nil {
		t.Fatal(werr)
	}
	if !exists || err != nil || !strings.Contains(string(out), "1111") {
		t.Fatalf("readState = %s, exists %v, %v; want the content written during the pauses", out, exists, err)
	}
}
