// Package codec is the one place that decodes YAML, and the one place that turns a CLI's state
// file into JSON.
//
// Keeping every YAML import here means a second YAML library (or a new major version of this
// one) is one package to change, and every caller gets the same strictness and the same error
// shape: a [*Error] that prints as file:line:col: message, so a typo in a policy or a provider
// file points at the line to fix. The messages are for the person editing the file, not in
// yaml.v3's terms ("allow must be a list, not "dev": write allow: [dev]", "did you mean
// `allow`?" through [Suggest]), and the line of a syntax error is the one to fix. [Decode] parses
// a file once for both the strict decode and the positions a caller's own checks point at, and
// [Problems] gathers the decoder's problems with the caller's, so that one run reports every
// mistake in a file. [Position] turns a byte offset into that line and
// column for the files read by offset (JSON settings and state files), so that every
// file:line:col counts the same way.
//
// State files come in four shapes (az writes JSON with a byte-order mark, kubectl and gh write
// YAML, gcloud writes INI, terraform a bare word). [ToJSON] turns each of them into JSON so that
// one path language (gjson, used by the providers package) reads all of them.
package codec
