package lint

import (
	"slices"

	"github.com/scriptctl/scriptctl/manifest"
)

// ManifestFiles returns one File per script of the manifest, in manifest
// order, with the script's declaration and the bytes the manifest read.
func ManifestFiles(m *manifest.Manifest) []File {
	out := make([]File, 0, len(m.Scripts))
	for _, s := range m.Scripts {
		d := DeclOf(s)
		d.Targets = slices.Clone(m.Targets)
		d.FunctionsOnly = !m.EvalRuns()
		for _, c := range m.Callers {
			if slices.Contains(c.Scripts, s.Name) {
				d.Callers = append(d.Callers, c.Name)
			}
		}
		out = append(out, File{Path: s.Path, Source: s.Source, Decl: d})
	}
	return out
}

// DeclOf returns the manifest's declaration of s.
func DeclOf(s *manifest.Script) *Decl {
	return &Decl{Script: s.Name, Keys: slices.Clone(s.Keys), Args: slices.Clone(s.Args), Flags: slices.Clone(s.Flags), HasReply: s.Reply != nil}
}
