// Package lua embeds the bundled Lua scripts of this repository, version 2
// of the catalog_refresh library (acquire.lua, publish.lua, invalidate.lua,
// renew.lua, release.lua), so Go code runs exactly the bytes that
// manifest.yaml names and scriptctl deploys: one source of truth. It does not
// parse, check or load the scripts; see packages manifest, verify and loader.
//
// The folder v1/ keeps the files of version 1 byte for byte, so the history
// scripts.sum records stays reproducible (a test hashes them); they are not
// embedded.
package lua

import (
	"embed"
	"fmt"
	"io/fs"
)

// Files holds every bundled script, by file name ("publish.lua").
//
//go:embed *.lua
var Files embed.FS

// Source returns the exact bytes of the bundled script file name, such as
// "publish.lua". The bytes hash to the SHA that SCRIPT LOAD returns for the
// file.
func Source(name string) ([]byte, error) {
	b, err := fs.ReadFile(Files, name)
	if err != nil {
		return nil, fmt.Errorf("bundled script %s: %w", name, err)
	}
	return b, nil
}

// MustSource is Source for names known at compile time; it panics when name
// is not bundled.
func MustSource(name string) []byte {
	b, err := Source(name)
	if err != nil {
		panic(err)
	}
	return b
}

// Names returns the file names of the bundled scripts, sorted.
func Names() []string {
	entries, _ := fs.ReadDir(Files, ".") // an embed.FS root always reads
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}
