// Package audit is the audit trail: one JSON object per line for every decision the hook makes
// while a policy that asks for it applies, appended to a file that log shippers (Fluent Bit, the
// OpenTelemetry Collector's filelog receiver, Vector) read as it grows.
//
// The file is shared by every hook process on the machine, and they run at the same time, so
// each line is written with one write(2) on a file opened with O_APPEND: the system appends it
// whole, and lines from different processes never interleave. Rotation (the file renamed to
// FILE.1 when the next line would pass the size limit) is done under a lock between processes
// ([lock.Acquire]), so that two hooks never both rename and lose a file.
//
// Secrets never reach the file: the command, the rewrite, the reason and the notes are passed
// through a [Redactor] first.
//
// A trail that cannot be written never changes a decision: the caller reports the error on
// stderr and notes it for `ctxguard doctor` ([NoteFailure]), and answers as it would have.
package audit
