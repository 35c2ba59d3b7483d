package lint

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
)

// WriteText writes one line per diagnostic, file:line:col: severity code:
// message, then an indented detail line per related location.
func WriteText(w io.Writer, ds []Diagnostic) error {
	for _, d := range ds {
		if _, err := fmt.Fprint(w, d.String()+"\n"+Details(d)); err != nil {
			return err
		}
	}
	return nil
}

// Details returns the indented detail lines of d ("    reached from
// 12:3"), each ending in a newline; "" without related locations.
func Details(d Diagnostic) string {
	var b strings.Builder
	for _, r := range d.Related {
		b.WriteString("    " + r.Message + "\n")
	}
	return b.String()
}

// JSONDiagnostic is the stable JSON form of a diagnostic (docs/json.md).
type JSONDiagnostic struct {
	File     string   `json:"file"`
	Line     int      `json:"line"`
	Column   int      `json:"column"`
	Severity Severity `json:"severity"`
	Code     string   `json:"code"`
	Message  string   `json:"message"`
	// Related lists the call paths through which the cause is reached;
	// omitted when there are none.
	Related []JSONRelated `json:"related,omitempty"`
}

// JSONRelated is a related location of a diagnostic.
type JSONRelated struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	Column  int    `json:"column"`
	Message string `json:"message"`
}

// WriteJSON writes the diagnostics as a JSON array (an empty array when
// there are none).
func WriteJSON(w io.Writer, ds []Diagnostic) error {
	out := make([]JSONDiagnostic, 0, len(ds))
	for _, d := range ds {
		j := JSONDiagnostic{File: d.Pos.File, Line: d.Pos.Line, Column: d.Pos.Col, Severity: d.Severity, Code: d.Code, Message: d.Message}
		for _, r := range d.Related {
			j.Related = append(j.Related, JSONRelated{File: r.Pos.File, Line: r.Pos.Line, Column: r.Pos.Col, Message: r.Message})
		}
		out = append(out, j)
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// SARIF 2.1.0, the subset GitHub code scanning reads.
type (
	sarifLog struct {
		Schema  string     `json:"$schema"`
		Version string     `json:"version"`
		Runs    []sarifRun `json:"runs"`
	}
	sarifRun struct {
		Tool       sarifTool     `json:"tool"`
		ColumnKind string        `json:"columnKind"`
		Results    []sarifResult `json:"results"`
	}
	sarifTool struct {
		Driver sarifDriver `json:"driver"`
	}
	sarifDriver struct {
		Name           string      `json:"name"`
		InformationURI string      `json:"informationUri"`
		Version        string      `json:"version,omitempty"`
		Rules          []sarifRule `json:"rules"`
	}
	sarifRule struct {
		ID                   string        `json:"id"`
		Name                 string        `json:"name"`
		ShortDescription     sarifText     `json:"shortDescription"`
		FullDescription      sarifText     `json:"fullDescription"`
		Help                 sarifHelp     `json:"help"`
		DefaultConfiguration sarifConfig   `json:"defaultConfiguration"`
		Properties           sarifRuleProp `json:"properties"`
	}
	sarifRuleProp struct {
		Tags []string `json:"tags"`
	}
	sarifText struct {
		Text string `json:"text"`
	}
	sarifHelp struct {
		Text     string `json:"text"`
		Markdown string `json:"markdown"`
	}
	sarifConfig struct {
		Level string `json:"level"`
	}
	sarifResult struct {
		RuleID    string          `json:"ruleId"`
		RuleIndex int             `json:"ruleIndex"`
		Level     string          `json:"level"`
		Message   sarifText       `json:"message"`
		Locations []sarifLocation `json:"locations"`
		Related   []sarifLocation `json:"relatedLocations,omitempty"`
	}
	sarifLocation struct {
		ID               *int          `json:"id,omitempty"`
		PhysicalLocation sarifPhysical `json:"physicalLocation"`
		Message          *sarifText    `json:"message,omitempty"`
	}
	sarifPhysical struct {
		ArtifactLocation sarifArtifact `json:"artifactLocation"`
		Region           sarifRegion   `json:"region"`
	}
	sarifArtifact struct {
		URI       string `json:"uri"`
		URIBaseID string `json:"uriBaseId"`
	}
	sarifRegion struct {
		StartLine   int `json:"startLine"`
		StartColumn int `json:"startColumn"`
	}
)

// WriteSARIF writes the diagnostics as a SARIF 2.1.0 log for GitHub code
// scanning: every registered rule with its help text, and one result per
// diagnostic. File paths should be relative to the repository root; they
// are written with forward slashes against %SRCROOT%.
func WriteSARIF(w io.Writer, ds []Diagnostic, version string) error {
	rules := Rules()
	index := map[string]int{}
	driver := sarifDriver{Name: "scriptctl", InformationURI: "https://github.com/scriptctl/scriptctl", Version: version}
	for i, r := range rules {
		index[r.Code] = i
		driver.Rules = append(driver.Rules, sarifRule{
			ID:                   r.Code,
			Name:                 pascal(r.Code),
			ShortDescription:     sarifText{Text: r.Summary},
			FullDescription:      sarifText{Text: r.Summary + ". " + r.Help},
			Help:                 sarifHelp{Text: r.Help, Markdown: fmt.Sprintf("**%s** (%s): %s\n\nSuppress one finding with `-- scriptctl:ignore %s <reason>` on its line or the line above.", r.Code, r.Severity, r.Help, r.Code)},
			DefaultConfiguration: sarifConfig{Level: string(r.Severity)},
			Properties:           sarifRuleProp{Tags: []string{"redis", "lua"}},
		})
	}
	run := sarifRun{Tool: sarifTool{Driver: driver}, ColumnKind: "unicodeCodePoints", Results: []sarifResult{}}
	for _, d := range ds {
		res := sarifResult{
			RuleID:    d.Code,
			RuleIndex: index[d.Code],
			Level:     string(d.Severity),
			Message:   sarifText{Text: d.Message},
			Locations: []sarifLocation{{PhysicalLocation: sarifPhysicalAt(d.Pos)}},
		}
		for i, r := range d.Related {
			id := i + 1
			res.Related = append(res.Related, sarifLocation{ID: &id, PhysicalLocation: sarifPhysicalAt(r.Pos), Message: &sarifText{Text: r.Message}})
		}
		run.Results = append(run.Results, res)
	}
	log := sarifLog{Schema: "https://json.schemastore.org/sarif-2.1.0.json", Version: "2.1.0", Runs: []sarifRun{run}}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(log)
}

func sarifPhysicalAt(p Pos) sarifPhysical {
	return sarifPhysical{
		ArtifactLocation: sarifArtifact{URI: sarifURI(p.File), URIBaseID: "%SRCROOT%"},
		Region:           sarifRegion{StartLine: max(p.Line, 1), StartColumn: max(p.Col, 1)},
	}
}

func sarifURI(path string) string {
	p := filepath.ToSlash(filepath.Clean(path))
	p = strings.TrimPrefix(p, "./")
	var b strings.Builder
	for _, r := range p {
		switch {
		case r == ' ':
			b.WriteString("%20")
		case r == '%':
			b.WriteString("%25")
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func pascal(code string) string {
	var b strings.Builder
	for _, part := range strings.Split(code, "-") {
		if part != "" {
			b.WriteString(strings.ToUpper(part[:1]) + part[1:])
		}
	}
	return b.String()
}
