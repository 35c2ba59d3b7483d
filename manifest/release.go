package manifest

import (
	"fmt"
	"slices"
)

// CheckRelease compares rm, the manifest kept for a released version
// (Manifest.ReleasePath), with what s records for that version: the same
// scripts with the same SHA1s. An empty result means rm's files are the
// bytes that were released. Unlike CheckSum it does not ask rm's version
// to be the latest.
func CheckRelease(rm *Manifest, s *Sum) []*Error {
	entries := s.Version(rm.Version)
	if len(entries) == 0 {
		return []*Error{{File: s.Path, Msg: fmt.Sprintf("version %d is not released: %s records versions up to %d", rm.Version, s.Path, s.Latest())}}
	}
	recorded := map[string]SumEntry{}
	for _, e := range entries {
		recorded[e.Script] = e
	}
	var out []*Error
	for _, sc := range rm.Scripts {
		e, ok := recorded[sc.Name]
		delete(recorded, sc.Name)
		switch {
		case !ok:
			out = append(out, &Error{File: rm.Path, Line: sc.Line, Msg: fmt.Sprintf("script %s is not in version %d as %s records it", sc.Name, rm.Version, s.Path)})
		case e.SHA != sc.SHA:
			out = append(out, &Error{File: sc.Path, Msg: fmt.Sprintf("is not the released bytes of version %d (%s:%d records %s, the file is %s)", rm.Version, s.Path, e.Line, e.SHA, sc.SHA)})
		}
	}
	var rest []string
	for name := range recorded {
		rest = append(rest, name)
	}
	slices.Sort(rest)
	for _, name := range rest {
		e := recorded[name]
		out = append(out, &Error{File: s.Path, Line: e.Line, Msg: fmt.Sprintf("version %d records script %s, which %s does not declare", rm.Version, name, rm.Path)})
	}
	return out
}
