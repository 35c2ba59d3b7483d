package diag

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"strings"
	"testing"
)

func TestString(t *testing.T) {
	for _, tc := range []struct {
		d    Diagnostic
		want string
	}{
		{Diagnostic{File: "a.lua", Line: 3, Column: 7, Severity: Error, Code: "global-write", Message: "x"}, "a.lua:3:7: error global-write: x"},
		{Diagnostic{File: "m.yaml", Line: 2, Severity: Warning, Code: "no-hash-tag", Message: "y", Detail: []string{"hint: z"}}, "m.yaml:2: warning no-hash-tag: y\n    hint: z"},
		{Diagnostic{File: "scripts.sum", Severity: Error, Code: "sum", Message: "not found"}, "scripts.sum: error sum: not found"},
	} {
		if got := tc.d.String(); got != tc.want {
			t.Errorf("String() = %q, want %q", got, tc.want)
		}
	}
}

func TestJSONDetailNeverNull(t *testing.T) {
	var b bytes.Buffer
	if err := WriteJSON(&b, []Diagnostic{{File: "a", Severity: Error, Code: "c", Message: "m"}}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `"detail": []`) || !strings.Contains(b.String(), `"format_version": "2"`) {
		t.Fatalf("JSON:\n%s", b.String())
	}
}

// TestSARIFRulesForEveryResult: a result whose code has no declared rule
// gets one, and ruleIndex points at it.
func TestSARIFRulesForEveryResult(t *testing.T) {
	var b bytes.Buffer
	runs := []Run{{Tool: "scriptctl sum", Diagnostics: []Diagnostic{{File: "dir name/a b.lua", Severity: Error, Code: "sum", Message: "m", Detail: []string{"d"}}}},
		{Tool: "scriptctl lint", Rules: []Rule{{Code: "global-write", Summary: "s", Severity: Error}, {Code: "unused-arg", Severity: Warning}},
			Diagnostics: []Diagnostic{{File: "x.lua", Line: 2, Column: 3, Severity: Warning, Code: "unused-arg", Message: "m"}}}}
	if err := WriteSARIF(&b, runs); err != nil {
		t.Fatal(err)
	}
	var log struct {
		Runs []struct {
			Tool struct {
				Driver struct{ Rules []struct{ ID string } }
			}
			Results []struct {
				RuleID    string
				RuleIndex int
				Message   struct{ Text string }
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI string }
						Region           struct{ StartLine, StartColumn int }
					}
				}
			}
		}
	}
	if err := json.Unmarshal(b.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	for i, run := range log.Runs {
		for _, r := range run.Results {
			if run.Tool.Driver.Rules[r.RuleIndex].ID != r.RuleID {
				t.Errorf("run %d: ruleIndex %d is %s, want %s", i, r.RuleIndex, run.Tool.Driver.Rules[r.RuleIndex].ID, r.RuleID)
			}
		}
	}
	r0 := log.Runs[0].Results[0]
	if r0.Message.Text != "m\nd" || r0.Locations[0].PhysicalLocation.ArtifactLocation.URI != "dir%20name/a%20b.lua" || r0.Locations[0].PhysicalLocation.Region.StartLine != 1 {
		t.Errorf("result = %+v", r0)
	}
}

func TestJUnitCounts(t *testing.T) {
	var b bytes.Buffer
	err := WriteJUnit(&b, "scriptctl check", []Suite{{Name: "check", Cases: []Case{
		{Name: "ok"}, {Name: "bad", Failure: &Failure{Message: "m", Text: "a <b> & c"}}, {Name: "broken", Error: &Failure{Message: "e"}}, {Name: "later", Skipped: "why"},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Errors   int `xml:"errors,attr"`
		Skipped  int `xml:"skipped,attr"`
		Suites   []struct {
			Cases []struct {
				Failure *struct {
					Text string `xml:",chardata"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	if doc.Tests != 4 || doc.Failures != 1 || doc.Errors != 1 || doc.Skipped != 1 || doc.Suites[0].Cases[1].Failure.Text != "a <b> & c" {
		t.Fatalf("doc = %+v\n%s", doc, b.String())
	}
}

// TestSARIFAutomationDetails: a run's automationDetails id comes from its
// tool unless the run asks for none (lint's own log keeps the code-scanning
// category it had), and related positions become relatedLocations.
func TestSARIFAutomationDetails(t *testing.T) {
	d := Diagnostic{File: "a.lua", Line: 2, Column: 3, Severity: Error, Code: "dynamic-key", Message: "m",
		Related: []Related{{File: "a.lua", Line: 4, Column: 1, Message: "reached from 4:1"}}}
	for _, tc := range []struct {
		run  Run
		want string
	}{
		{Run{Tool: "scriptctl lint", Diagnostics: []Diagnostic{d}}, "scriptctl/lint/"},
		{Run{Tool: "scriptctl", Diagnostics: []Diagnostic{d}, NoAutomationDetails: true}, ""},
	} {
		var b bytes.Buffer
		if err := WriteSARIF(&b, []Run{tc.run}); err != nil {
			t.Fatal(err)
		}
		var log struct {
			Runs []struct {
				AutomationDetails *struct {
					ID string `json:"id"`
				} `json:"automationDetails"`
				Results []struct {
					RelatedLocations []struct {
						ID      int               `json:"id"`
						Message map[string]string `json:"message"`
					} `json:"relatedLocations"`
				} `json:"results"`
			} `json:"runs"`
		}
		if err := json.Unmarshal(b.Bytes(), &log); err != nil {
			t.Fatal(err)
		}
		run := log.Runs[0]
		got := ""
		if run.AutomationDetails != nil {
			got = run.AutomationDetails.ID
		}
		if got != tc.want {
			t.Errorf("%s: automationDetails.id %q, want %q", tc.run.Tool, got, tc.want)
		}
		if rl := run.Results[0].RelatedLocations; len(rl) != 1 || rl[0].ID != 1 || rl[0].Message["text"] != "reached from 4:1" {
			t.Errorf("%s: relatedLocations %+v", tc.run.Tool, rl)
		}
	}
}
