package providers

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxguard/ctxguard/internal/testenv"
)

// TestReadStateSettle checks the retry for a file caught mid-write: a file that stays cut short
// is read again after a short pause, and then reported with its name; good and missing files
// are read as usual.
func TestReadStateSettle(t *testing.T) {
	dir := testenv.TempDir(t)
	cut := filepath.Join(dir, "azureProfile.json")
	if err := os.WriteFile(cut, []byte(`{"subscriptions": [{"id": "1111`), 0o644); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, exists, err := readState(cut, "json", nil)
	took := time.Since(start)
	var se *StateError
	if !exists || !errors.As(err, &se) || se.File != cut || !strings.Contains(err.Error(), "invalid JSON") {
		t.Fatalf("readState(cut short) = exists %v, %v; want a StateError naming the file", exists, err)
	}
	if took < settle {
		t.Errorf("took %v, want a pause of %v before the second read", took, settle)
	}
	if took > time.Second {
		t.Errorf("took %v: the retry is not bounded", took)
	}

	good := filepath.Join(dir, "good.json")
	if err := os.WriteFile(good, []byte(`{"subscriptions": []}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := readState(good, "json", nil); err != nil {
		t.Fatal(err)
	}

	// A file that is missing is not retried: a CLI that was never used has none.
	if _, exists, err := readState(filepath.Join(dir, "missing.json"), "json", nil); exists || err != nil {
		t.Fatalf("missing file: exists %v, %v", exists, err)
	}
}
