// Package arch holds no code: its tests enforce the module's layout, the edges between its
// packages that the folder names promise (see the README's "How it works").
package arch
