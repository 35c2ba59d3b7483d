// Package archtest holds the test that keeps the module's imports to the
// rooms and arrows docs/architecture.md declares. It has no code of its
// own.
package archtest
