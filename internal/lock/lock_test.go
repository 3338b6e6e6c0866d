package lock

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/ctxguard/ctxguard/internal/testenv"
)

func TestExclusive(t *testing.T) {
	path := filepath.Join(testenv.TempDir(t), "x.lock")
	release, err := Acquire(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, err := Acquire(path, 30*time.Millisecond); !errors.Is(err, errBusy) {
		t.Fatalf("second Acquire while held: %v, want errBusy", err)
	}
	if waited := time.Since(start); waited < 30*time.Millisecond {
		t.Errorf("gave up after %v, want the whole wait", waited)
	}
	release()
	again, err := Acquire(path, 0)
	if err != nil {
		t.Fatalf("Acquire after release: %v", err)
	}
	again()
	if fi, err := os.Stat(path); err != nil || fi.Size() != 0 {
		t.Errorf("lock file: %v, %v; want it there and empty", fi, err)
	}
}

// TestReleasedAtExit: a process that exits holding the lock, as a hook killed by its harness
// would, leaves it free.
func TestReleasedAtExit(t *testing.T) {
	if p := os.Getenv("LOCK_TEST_HOLD"); p != "" {
		if _, err := Acquire(p, 0); err != nil {
			os.Exit(3)
		}
		os.Exit(0) // without releasing
	}
	path := filepath.Join(testenv.TempDir(t), "x.lock")
	cmd := exec.Command(os.Args[0], "-test.run=^TestReleasedAtExit$")
	cmd.Env = append(os.Environ(), "LOCK_TEST_HOLD="+path)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	release, err := Acquire(path, 0)
	if err != nil {
		t.Fatalf("Acquire after the holder exited: %v", err)
	}
	release()
}

// TestWaits: a lock held briefly is taken once it is released, within the wait.
func TestWaits(t *testing.T) {
	path := filepath.Join(testenv.TempDir(t), "x.lock")
	release, err := Acquire(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	go func() { time.Sleep(20 * time.Millisecond); release() }()
	next, err := Acquire(path, 5*time.Second)
	if err != nil {
		t.Fatalf("Acquire while the holder lets go: %v", err)
	}
	next()
}

func TestMissingFolder(t *testing.T) {
	if _, err := Acquire(filepath.Join(testenv.TempDir(t), "no", "x.lock"), 0); err == nil {
		t.Error("Acquire in a missing folder succeeded")
	}
}
