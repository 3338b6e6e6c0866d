// Package explain renders a decision and its trace for people (text) and for other tools (JSON).
// The JSON field names are a contract: decision, rule, reason, command, calls, policies.
package explain
