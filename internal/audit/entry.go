package audit

import (
	"crypto/rand"
	"encoding/base32"
	"strconv"
	"strings"
	"time"

	"github.com/ctxguard/ctxguard/internal/lift"
	"github.com/ctxguard/ctxguard/rules"
)

// Entry is one logged decision, one line of the file. The field names are a contract with the
// log shippers and whatever reads their output: add fields, never rename one.
type Entry struct {
	Time    time.Time `json:"time"` // RFC 3339, with the local offset
	ID      string    `json:"id"`   // short and unique: `ctxguard explain --id` finds the line by it
	Harness string    `json:"harness"`
	Session string    `json:"session"`
	// Agent is the subagent that made the call ("" for the main agent).
	Agent string `json:"agent"`
	Cwd   string `json:"cwd"`
	Tool  string `json:"tool"`
	// Shell is the language the command was read in (bash, powershell; "" for a file tool) and
	// Mode the harness's permission mode: what `explain --id` needs to decide the line again.
	Shell string `json:"shell,omitempty"`
	Mode  string `json:"mode,omitempty"`
	// Command is the line as the agent sent it, secrets blanked; Paths the files a file tool
	// writes.
	Command  string   `json:"command"`
	Paths    []string `json:"paths,omitempty"`
	Decision string   `json:"decision"` // allow, rewrite, ask, deny
	Rule     string   `json:"rule"`
	Reason   string   `json:"reason"`
	// Rewrite is the command as it runs when the hook bound it (secrets blanked).
	Rewrite  string             `json:"rewrite,omitempty"`
	Policies []rules.PolicyFile `json:"policies"`
	// Lifts are the lifts that let a rule's call through.
	Lifts []lift.Lift `json:"lifts,omitempty"`
	// Notes are what the decision's explanation notes (a lift file ignored, session memory that
	// could not be read).
	Notes      []string `json:"notes,omitempty"`
	DurationUS int64    `json:"duration_us"` // from the hook's start to its decision
	Version    string   `json:"version"`     // of ctxguard
}

// NewEntry is a new line for a decision on req at now, with a new id and the request's fields;
// the caller fills in the decision. [Entry.Request] reads them back.
func NewEntry(req rules.Request, now time.Time) *Entry {
	return &Entry{
		Time: now, ID: NewID(), Harness: req.Harness, Session: req.Session, Agent: req.Agent, Cwd: req.Cwd,
		Tool: req.Tool, Shell: req.Shell, Mode: req.Mode, Command: req.Command, Paths: req.Paths,
	}
}

// Request is the request the line was decided for, as far as the line keeps it, so that
// `ctxguard explain --id` can decide it again.
func (e *Entry) Request() rules.Request {
	return rules.Request{
		Harness: e.Harness, Session: e.Session, Agent: e.Agent, Cwd: e.Cwd,
		Tool: e.Tool, Shell: e.Shell, Mode: e.Mode, Command: e.Command, Paths: e.Paths,
	}
}

// NewID returns a short random id: 12 characters of base32, 60 bits, so that ids do not repeat
// in any one trail (a 10 MiB file holds some 20,000 lines).
func NewID() string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24)
	return strings.ToLower(base32.StdEncoding.EncodeToString(b[:]))[:12]
}

// Limits on what one line holds, so that a line stays small whatever the agent sends (a
// command may be megabytes long) and the trail's size limit means something.
const (
	maxText  = 16 << 10
	maxPaths = 100
)

// clip shortens s to at most max bytes, cutting at the last blank or separator before the
// limit so that no token is cut in half (a token cut short would no longer look like one, and
// could escape redaction), and says how much it left out.
func clip(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := strings.LastIndexAny(s[:max], " \t\r\n;|&")
	if cut < 0 {
		cut = 0
	}
	return s[:cut] + " …[" + strconv.Itoa(len(s)-cut) + " bytes not logged]"
}
