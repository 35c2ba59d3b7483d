package lint

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

var sample = []Diagnostic{
	{Pos: Pos{File: "lua/a.lua", Line: 3, Col: 8}, Code: "dynamic-key", Severity: Error, Message: `key argument 1 of GET is the literal "x"`},
	{Pos: Pos{File: "lua/b c.lua", Line: 1, Col: 1}, Code: "unused-arg", Severity: Warning, Message: "ARGV[2] unused"},
}

func TestWriteText(t *testing.T) {
	var b bytes.Buffer
	if err := WriteText(&b, sample); err != nil {
		t.Fatal(err)
	}
	want := "lua/a.lua:3:8: error dynamic-key: key argument 1 of GET is the literal \"x\"\nlua/b c.lua:1:1: warning unused-arg: ARGV[2] unused\n"
	if b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}

func TestWriteJSON(t *testing.T) {
	var b bytes.Buffer
	if err := WriteJSON(&b, nil); err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(b.String()) != "[]" {
		t.Errorf("no findings: got %q, want []", b.String())
	}
	b.Reset()
	if err := WriteJSON(&b, sample); err != nil {
		t.Fatal(err)
	}
	var got []map[string]any
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"file": "lua/a.lua", "line": 3.0, "column": 8.0, "severity": "error", "code": "dynamic-key", "message": `key argument 1 of GET is the literal "x"`}
	if len(got) != 2 || len(got[0]) != len(want) {
		t.Fatalf("got %v", got)
	}
	for k, v := range want {
		if got[0][k] != v {
			t.Errorf("%s: got %v, want %v", k, got[0][k], v)
		}
	}
}

func TestWriteSARIF(t *testing.T) {
	var b bytes.Buffer
	if err := WriteSARIF(&b, sample, "1.2.3"); err != nil {
		t.Fatal(err)
	}
	var log struct {
		Version string `json:"version"`
		Runs    []struct {
			Tool struct {
				Driver struct {
					Name  string `json:"name"`
					Rules []struct {
						ID               string            `json:"id"`
						ShortDescription map[string]string `json:"shortDescription"`
						FullDescription  map[string]string `json:"fullDescription"`
						Help             map[string]string `json:"help"`
						Default          map[string]string `json:"defaultConfiguration"`
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			Results []struct {
				RuleID    string `json:"ruleId"`
				RuleIndex int    `json:"ruleIndex"`
				Level     string `json:"level"`
				Message   map[string]string
				Locations []struct {
					Physical struct {
						Artifact map[string]string `json:"artifactLocation"`
						Region   map[string]int    `json:"region"`
					} `json:"physicalLocation"`
				} `json:"locations"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(b.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	if log.Version != "2.1.0" || len(log.Runs) != 1 {
		t.Fatalf("version %q, %d runs", log.Version, len(log.Runs))
	}
	run := log.Runs[0]
	if len(run.Tool.Driver.Rules) != len(Rules()) {
		t.Errorf("%d rules, want %d", len(run.Tool.Driver.Rules), len(Rules()))
	}
	for _, r := range run.Tool.Driver.Rules {
		if r.ShortDescription["text"] == "" || r.FullDescription["text"] == "" || r.Help["text"] == "" || (r.Default["level"] != "error" && r.Default["level"] != "warning" && r.Default["level"] != "note") {
			t.Errorf("rule %s incomplete: %+v", r.ID, r)
		}
	}
	if len(run.Results) != 2 {
		t.Fatalf("%d results", len(run.Results))
	}
	r0 := run.Results[0]
	if r0.RuleID != "dynamic-key" || run.Tool.Driver.Rules[r0.RuleIndex].ID != "dynamic-key" || r0.Level != "error" {
		t.Errorf("result 0: %+v", r0)
	}
	loc := r0.Locations[0].Physical
	if loc.Artifact["uri"] != "lua/a.lua" || loc.Region["startLine"] != 3 || loc.Region["startColumn"] != 8 {
		t.Errorf("location: %+v", loc)
	}
	if got := run.Results[1].Locations[0].Physical.Artifact["uri"]; got != "lua/b%20c.lua" {
		t.Errorf("uri %q, want lua/b%%20c.lua", got)
	}
}
