// Package render writes a scenario report (package scenario) for people
// and programs: the one-line summary of a result, the problems and the
// step-by-step trace as text, and the JSON document of "scriptctl verify
// --format json" (docs/json.md). Package scenario runs and judges the
// scenarios; it never writes to a terminal.
package render
