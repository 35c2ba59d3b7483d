package diag

import (
	"io"
	"strings"
)

// Rule describes one code of a SARIF run's tool.
type Rule struct {
	Code     string
	Summary  string // one line
	Help     string // plain text
	Markdown string // optional; Help when empty
	Severity string // the default level
}

// Run is one SARIF run: a tool (for scriptctl check, one per step), its
// rules and its findings. A finding whose code has no rule gets a rule made
// from the code alone.
type Run struct {
	Tool        string // e.g. "scriptctl lint"
	Version     string
	Rules       []Rule
	Diagnostics []Diagnostic
	// NoAutomationDetails leaves out automationDetails (otherwise its id is
	// the tool with / for spaces, "scriptctl/lint/"), for a log whose
	// code-scanning category must stay what it was without one.
	NoAutomationDetails bool
}

// SARIF 2.1.0: the subset GitHub code scanning reads.
type (
	sarifLog struct {
		Schema  string     `json:"$schema"`
		Version string     `json:"version"`
		Runs    []sarifRun `json:"runs"`
	}
	sarifRun struct {
		Tool              sarifTool          `json:"tool"`
		AutomationDetails *sarifAutomationID `json:"automationDetails,omitempty"`
		ColumnKind        string             `json:"columnKind"`
		Results           []sarifResult      `json:"results"`
	}
	sarifAutomationID struct {
		ID string `json:"id"`
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
		// RelatedLocations are the Diagnostic's Related positions.
		RelatedLocations []sarifLocation `json:"relatedLocations,omitempty"`
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

// WriteSARIF writes a SARIF 2.1.0 log with one run per element of runs.
// Paths should be relative to the repository root; they are written with
// forward slashes against %SRCROOT%. Detail lines follow the message.
func WriteSARIF(w io.Writer, runs []Run) error {
	log := sarifLog{Schema: "https://json.schemastore.org/sarif-2.1.0.json", Version: "2.1.0", Runs: []sarifRun{}}
	for _, r := range runs {
		log.Runs = append(log.Runs, sarifRunOf(r))
	}
	return encode(w, log)
}

func sarifRunOf(r Run) sarifRun {
	driver := sarifDriver{Name: r.Tool, InformationURI: "https://github.com/scriptctl/scriptctl", Version: r.Version, Rules: []sarifRule{}}
	index := map[string]int{}
	addRule := func(rule Rule) {
		if _, ok := index[rule.Code]; ok {
			return
		}
		index[rule.Code] = len(driver.Rules)
		summary := rule.Summary
		if summary == "" {
			summary = rule.Code
		}
		help := rule.Help
		if help == "" {
			help = summary
		}
		md := rule.Markdown
		if md == "" {
			md = help
		}
		level := sarifLevel(rule.Severity)
		driver.Rules = append(driver.Rules, sarifRule{
			ID: rule.Code, Name: Pascal(rule.Code),
			ShortDescription:     sarifText{Text: summary},
			FullDescription:      sarifText{Text: strings.TrimSuffix(summary, ".") + ". " + help},
			Help:                 sarifHelp{Text: help, Markdown: md},
			DefaultConfiguration: sarifConfig{Level: level},
			Properties:           sarifRuleProp{Tags: []string{"redis", "lua"}},
		})
	}
	for _, rule := range r.Rules {
		addRule(rule)
	}
	run := sarifRun{Tool: sarifTool{Driver: driver}, ColumnKind: "unicodeCodePoints", Results: []sarifResult{}}
	if r.Tool != "" && !r.NoAutomationDetails {
		run.AutomationDetails = &sarifAutomationID{ID: strings.ReplaceAll(r.Tool, " ", "/") + "/"}
	}
	for _, d := range r.Diagnostics {
		addRule(Rule{Code: d.Code, Severity: d.Severity})
		msg := d.Message
		if len(d.Detail) > 0 {
			msg += "\n" + strings.Join(d.Detail, "\n")
		}
		res := sarifResult{
			RuleID: d.Code, RuleIndex: index[d.Code], Level: sarifLevel(d.Severity),
			Message: sarifText{Text: msg},
			Locations: []sarifLocation{{PhysicalLocation: sarifPhysical{
				ArtifactLocation: sarifArtifact{URI: URI(d.File), URIBaseID: "%SRCROOT%"},
				Region:           sarifRegion{StartLine: max(d.Line, 1), StartColumn: max(d.Column, 1)},
			}}},
		}
		for i, rel := range d.Related {
			id := i + 1
			res.RelatedLocations = append(res.RelatedLocations, sarifLocation{
				ID: &id,
				PhysicalLocation: sarifPhysical{
					ArtifactLocation: sarifArtifact{URI: URI(rel.File), URIBaseID: "%SRCROOT%"},
					Region:           sarifRegion{StartLine: max(rel.Line, 1), StartColumn: max(rel.Column, 1)},
				},
				Message: &sarifText{Text: rel.Message},
			})
		}
		run.Results = append(run.Results, res)
	}
	run.Tool.Driver = driver
	return run
}

// Pascal turns a code such as global-write into GlobalWrite (SARIF's rule
// name).
func Pascal(code string) string {
	var b strings.Builder
	for _, part := range strings.FieldsFunc(code, func(r rune) bool { return r == '-' || r == '_' }) {
		b.WriteString(strings.ToUpper(part[:1]) + part[1:])
	}
	return b.String()
}

// sarifLevel is SARIF's level for a severity: error and warning as they
// are, info as "note" (SARIF has no "info"), none as error.
func sarifLevel(severity string) string {
	switch severity {
	case "":
		return Error
	case Info:
		return "note"
	}
	return severity
}
