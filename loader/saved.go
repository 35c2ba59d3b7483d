package loader

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// SavedPlanFormat is the format_version of a saved plan file; a file of
// another version is refused.
const SavedPlanFormat = "1"

// SavedPlanKind is the kind field of a saved plan file.
const SavedPlanKind = "scriptctl-plan"

// SavedPlan is a plan written to a file (plan --out) for a later deploy to
// apply exactly (deploy FILE): what would load where, and what it was
// computed from (the manifest's digest, scripts.sum's, the servers'
// identities). It holds no secret: its URLs carry no password.
type SavedPlan struct {
	FormatVersion string    `json:"format_version"`
	Kind          string    `json:"kind"`
	Created       time.Time `json:"created"`
	// Manifest is the manifest's path as given; ManifestDigest is
	// manifest.Manifest.Digest; SumDigest the SHA-256 of scripts.sum
	// ("" when there is none).
	Manifest       string `json:"manifest"`
	ManifestDigest string `json:"manifest_digest"`
	SumDigest      string `json:"sum_digest"`
	Library        string `json:"library"`
	LibraryName    string `json:"library_name"`
	Version        int    `json:"version"`
	Mode           string `json:"mode"`
	Replace        bool   `json:"replace"`
	// Environment is --env's name, "" without.
	Environment string `json:"environment,omitempty"`
	// URLs are the seeds, redis://[user@]host:port, no password.
	URLs    []string    `json:"urls"`
	Cluster bool        `json:"cluster"`
	Changes int         `json:"changes"`
	Nodes   []SavedNode `json:"nodes"`
}

// SavedNode is one node of a saved plan: its identity and its items.
type SavedNode struct {
	Addr    string      `json:"addr"`
	Role    string      `json:"role"`
	Primary string      `json:"primary,omitempty"`
	Server  string      `json:"server"`
	Version string      `json:"version"`
	RunID   string      `json:"run_id"`
	Items   []SavedItem `json:"items"`
}

// SavedItem is one item of a saved node.
type SavedItem struct {
	Kind   string `json:"kind"`
	Name   string `json:"name"`
	SHA    string `json:"sha,omitempty"`
	Action string `json:"action"`
}

// NewSavedPlan records p, made on topology t, with what it was computed
// from. The caller fills in Manifest, the digests, Environment and URLs.
func NewSavedPlan(p *PlanReport, t *Topology, created time.Time) *SavedPlan {
	s := &SavedPlan{FormatVersion: SavedPlanFormat, Kind: SavedPlanKind, Created: created.UTC(),
		Library: p.Library, LibraryName: p.LibraryName, Version: p.Version, Mode: string(p.Mode), Replace: p.Replace,
		URLs: []string{}, Cluster: t.Cluster, Changes: p.Changes(), Nodes: savedNodes(p)}
	return s
}

func savedNodes(p *PlanReport) []SavedNode {
	out := []SavedNode{}
	for _, np := range p.Nodes {
		n := np.Node
		sn := SavedNode{Addr: n.Addr, Role: string(n.Role), Primary: n.Primary, Server: n.Family, Version: n.Version, RunID: n.RunID(), Items: []SavedItem{}}
		for _, it := range np.Items {
			sn.Items = append(sn.Items, SavedItem{Kind: it.Kind, Name: it.Name, SHA: it.SHA, Action: string(it.Action)})
		}
		out = append(out, sn)
	}
	return out
}

// Differences lists how p, a plan made now, differs from the saved one:
// the library or mode, a node added, gone, restarted (another run_id),
// with another role or server, or an item whose action changed. None
// means the saved plan still holds.
func (s *SavedPlan) Differences(p *PlanReport) []string {
	var out []string
	if p.LibraryName != s.LibraryName || string(p.Mode) != s.Mode || p.Replace != s.Replace {
		out = append(out, fmt.Sprintf("the plan is for %s (mode %s, replace %t), this deploy for %s (mode %s, replace %t)",
			s.LibraryName, s.Mode, s.Replace, p.LibraryName, p.Mode, p.Replace))
	}
	now := map[string]SavedNode{}
	var addrs []string
	for _, n := range savedNodes(p) {
		now[n.Addr] = n
		addrs = append(addrs, n.Addr)
	}
	saved := map[string]bool{}
	for _, was := range s.Nodes {
		saved[was.Addr] = true
		is, ok := now[was.Addr]
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("node %s: in the plan, not among the servers now", was.Addr))
			continue
		case is.RunID != was.RunID:
			out = append(out, fmt.Sprintf("node %s: restarted or replaced since the plan (run_id %s, was %s)", was.Addr, abbrevID(is.RunID), abbrevID(was.RunID)))
		case is.Role != was.Role || is.Primary != was.Primary:
			out = append(out, fmt.Sprintf("node %s: now %s, was %s", was.Addr, roleText(is), roleText(was)))
		case is.Server != was.Server || is.Version != was.Version:
			out = append(out, fmt.Sprintf("node %s: now %s %s, was %s %s", was.Addr, is.Server, is.Version, was.Server, was.Version))
		}
		out = append(out, itemDifferences(was, is)...)
	}
	for _, a := range addrs {
		if !saved[a] {
			out = append(out, fmt.Sprintf("node %s: among the servers now, not in the plan", a))
		}
	}
	return out
}

func itemDifferences(was, is SavedNode) []string {
	var out []string
	key := func(it SavedItem) string { return it.Kind + " " + it.Name + " " + it.SHA }
	nowAction := map[string]string{}
	for _, it := range is.Items {
		nowAction[key(it)] = it.Action
	}
	seen := map[string]bool{}
	for _, it := range was.Items {
		k := key(it)
		seen[k] = true
		a, ok := nowAction[k]
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("node %s: %s %s: in the plan, not in this deploy", was.Addr, it.Kind, it.Name))
		case a != it.Action:
			out = append(out, fmt.Sprintf("node %s: %s %s: now %s, was %s", was.Addr, it.Kind, it.Name, a, it.Action))
		}
	}
	for _, it := range is.Items {
		if !seen[key(it)] {
			out = append(out, fmt.Sprintf("node %s: %s %s: in this deploy, not in the plan", is.Addr, it.Kind, it.Name))
		}
	}
	return out
}

func roleText(n SavedNode) string {
	if n.Primary != "" {
		return n.Role + " of " + n.Primary
	}
	return n.Role
}

func abbrevID(id string) string {
	if id == "" {
		return "none"
	}
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

// ErrSavedPlan is matched by errors.Is for a saved plan file that cannot
// be used (not JSON, another kind or format_version, fields missing).
var ErrSavedPlan = errors.New("loader: invalid saved plan")

// ReadSavedPlan reads and checks a saved plan file.
func ReadSavedPlan(path string) (*SavedPlan, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseSavedPlan(path, data)
}

// ParseSavedPlan parses a saved plan read from path.
func ParseSavedPlan(path string, data []byte) (*SavedPlan, error) {
	var s SavedPlan
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("%s: %w: not a plan file (%v)", path, ErrSavedPlan, err)
	}
	switch {
	case s.Kind != SavedPlanKind:
		return nil, fmt.Errorf("%s: %w: kind %q, want %q (write one with 'scriptctl plan --out')", path, ErrSavedPlan, s.Kind, SavedPlanKind)
	case s.FormatVersion != SavedPlanFormat:
		return nil, fmt.Errorf("%s: %w: format_version %q, this scriptctl reads %q", path, ErrSavedPlan, s.FormatVersion, SavedPlanFormat)
	case s.ManifestDigest == "" || s.LibraryName == "" || s.Mode == "":
		return nil, fmt.Errorf("%s: %w: manifest_digest, library_name and mode are required", path, ErrSavedPlan)
	case len(s.Nodes) == 0:
		return nil, fmt.Errorf("%s: %w: no nodes", path, ErrSavedPlan)
	}
	if _, err := ParseMode(s.Mode); err != nil {
		return nil, fmt.Errorf("%s: %w: %v", path, ErrSavedPlan, err)
	}
	return &s, nil
}

// WriteSavedPlan writes s to path atomically (a temporary file renamed over
// it), readable by its owner only.
func WriteSavedPlan(path string, s *SavedPlan) error {
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	data = append(data, '\n')
	f, err := os.CreateTemp(filepath.Dir(path), ".plan-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
