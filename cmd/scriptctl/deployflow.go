package main

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/scriptctl/scriptctl/internal/cmdutil"
	"github.com/scriptctl/scriptctl/internal/iostreams"
	"github.com/scriptctl/scriptctl/loader"
	"github.com/scriptctl/scriptctl/manifest"
)

// This file holds what deploy adds to a plain deploy: a saved plan applied
// exactly (plan --out, deploy FILE), a rollback to a released version
// (--version), and the confirmation on a terminal (--yes skips it).

// sumDigest is the SHA-256 of m's scripts.sum, "" when there is none.
func sumDigest(m *manifest.Manifest) (string, error) {
	data, err := os.ReadFile(m.SumPath())
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", cmdutil.Input(err)
	}
	h := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(h[:]), nil
}

// seedURLs are the servers o connected to as URLs without a password:
// scheme://[user@]host:port.
func (o *online) seedURLs() []string {
	scheme := "redis://"
	if o.cfg.TLS() {
		scheme = "rediss://"
	}
	user := ""
	if o.cfg.Username != "" {
		user = o.cfg.Username + "@"
	}
	out := []string{}
	for _, s := range o.cfg.Seeds {
		out = append(out, scheme+user+s)
	}
	return out
}

// savePlan writes p, made for m on o, to path (plan --out).
func savePlan(ios *iostreams.IOStreams, path, manifestPath, env string, m *manifest.Manifest, o *online, p *loader.PlanReport) error {
	sd, err := sumDigest(m)
	if err != nil {
		return err
	}
	sp := loader.NewSavedPlan(p, o.topo, time.Now())
	sp.Manifest, sp.ManifestDigest, sp.SumDigest = manifestPath, m.Digest(), sd
	sp.Environment, sp.URLs = env, o.seedURLs()
	if err := loader.WriteSavedPlan(path, sp); err != nil {
		return cmdutil.Input(fmt.Errorf("plan --out: %w", err))
	}
	ios.Notice("Saved the plan to %s: 'scriptctl deploy %s' applies exactly this plan, or refuses if the servers or the repository changed.", path, path)
	return nil
}

// readPlanFile reads deploy's FILE: a missing or invalid file is invalid
// input (exit 2).
func readPlanFile(path string) (*loader.SavedPlan, error) {
	sp, err := loader.ReadSavedPlan(path)
	if err != nil {
		if errors.Is(err, loader.ErrSavedPlan) {
			return nil, cmdutil.Usage(err, "write a plan with 'scriptctl plan --out FILE'")
		}
		return nil, cmdutil.Input(fmt.Errorf("read the plan: %w", err))
	}
	return sp, nil
}

// checkPlanRepository refuses (exit 1) a saved plan made from another
// manifest, other scripts or another scripts.sum than the repository's now.
func checkPlanRepository(ios *iostreams.IOStreams, path string, sp *loader.SavedPlan, m *manifest.Manifest) error {
	sd, err := sumDigest(m)
	if err != nil {
		return err
	}
	var what []string
	if m.Digest() != sp.ManifestDigest {
		what = append(what, m.Path+" or its scripts")
	}
	if sd != sp.SumDigest {
		what = append(what, m.SumPath())
	}
	if len(what) == 0 {
		return nil
	}
	for _, d := range planScriptChanges(sp, m) {
		ios.Notice("plan %s: %s", path, d)
	}
	return &cmdutil.ExitError{Code: cmdutil.ExitFindings,
		Err:  fmt.Errorf("the repository changed since the plan in %s was made (%s differ); nothing was sent", path, strings.Join(what, " and ")),
		Hint: fmt.Sprintf("make and review a new plan: 'scriptctl plan --out %s'", path)}
}

// planScriptChanges names what differs between the scripts and library a
// saved plan loads and the manifest's now: a version, a script's bytes, a
// script added or removed.
func planScriptChanges(sp *loader.SavedPlan, m *manifest.Manifest) []string {
	var out []string
	if sp.Version != m.Version || sp.Library != m.Library {
		out = append(out, fmt.Sprintf("the plan deploys %s version %d, %s says %s version %d", sp.Library, sp.Version, m.Path, m.Library, m.Version))
	}
	planned := map[string]string{}
	var names []string
	for _, n := range sp.Nodes {
		for _, it := range n.Items {
			if _, seen := planned[it.Name]; it.Kind == loader.KindScript && !seen {
				planned[it.Name] = it.SHA
				names = append(names, it.Name)
			}
		}
	}
	if len(planned) == 0 {
		return out // a functions-only plan: the version says it
	}
	for _, sc := range m.Scripts {
		sha, ok := planned[sc.Name]
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("script %s: in %s, not in the plan", sc.Name, m.Path))
		case sha != sc.SHA:
			out = append(out, fmt.Sprintf("script %s: %s is now %s, the plan loads %s", sc.Name, sc.File, abbrevSHA(sc.SHA), abbrevSHA(sha)))
		}
	}
	for _, name := range names {
		if m.Script(name) == nil {
			out = append(out, fmt.Sprintf("script %s: in the plan, no longer in %s", name, m.Path))
		}
	}
	return out
}

// stalePlan is the refusal of a saved plan whose servers changed: each
// difference on stderr, the error naming how many.
func stalePlan(ios *iostreams.IOStreams, path string, diffs []string) error {
	for _, d := range diffs {
		ios.Notice("plan %s: %s", path, d)
	}
	return &cmdutil.ExitError{Code: cmdutil.ExitFindings,
		Err:  fmt.Errorf("the servers changed since the plan in %s was made (%s); nothing was changed", path, checkPlural(len(diffs), "difference")),
		Hint: fmt.Sprintf("make and review a new plan: 'scriptctl plan --out %s'", path)}
}

// releaseManifest returns the manifest kept for released version v of m
// (its releases field) and the pre-flight steps that check it: the same as
// a deploy's, except that scripts.sum must record exactly its scripts'
// bytes under version v (it need not be the latest).
func releaseManifest(m *manifest.Manifest, v int, mode loader.Mode) (*manifest.Manifest, []checkStep, error) {
	hint := "'scriptctl deploy --help'"
	path := m.ReleasePath(v)
	if path == "" {
		return nil, nil, cmdutil.Usage(fmt.Errorf("deploy --version %d: %s has no releases field saying where released versions are kept", v, m.Path),
			"add releases: lua/v<version>/manifest.yaml to the manifest, and keep each released version's manifest and files there")
	}
	sum, err := manifest.ReadSum(m.SumPath())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, cmdutil.Usage(fmt.Errorf("deploy --version %d: %s does not exist: no version is released", v, m.SumPath()), hint)
	} else if err != nil {
		return nil, nil, err
	}
	if len(sum.Version(v)) == 0 {
		return nil, nil, cmdutil.Usage(fmt.Errorf("deploy --version %d: version %d is not released: %s records versions up to %d", v, v, m.SumPath(), sum.Latest()), hint)
	}
	rm, err := loadManifestFor(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return nil, nil, cmdutil.Usage(fmt.Errorf("deploy --version %d: no manifest kept at %s (releases: %s)", v, path, m.Releases), "restore the released version's manifest and files there")
		}
		return nil, nil, err
	}
	if rm.Library != m.Library || rm.Version != v {
		return nil, nil, cmdutil.Input(fmt.Errorf("deploy --version %d: %s is library %s version %d, not %s version %d", v, path, rm.Library, rm.Version, m.Library, v))
	}
	steps := preflightSteps(mode)
	for i := range steps {
		if steps[i].Name == "sum" {
			steps[i].Run = func(ctx context.Context, rm *manifest.Manifest) stepResult {
				if problems := manifest.CheckRelease(rm, sum); len(problems) > 0 {
					return stepResult{Findings: checkFindingsOf("error", problems)}
				}
				return stepResult{Summary: fmt.Sprintf("the released bytes of version %d, as %s records them", v, sum.Path)}
			}
		}
	}
	return rm, steps, nil
}

// confirmDeploy shows p and asks before a deploy changes anything, when a
// person can answer: stdin and stdout or stderr are terminals, no --yes,
// not --dry-run nor --format json, and p changes something. Anything but
// y or yes cancels (exit 1, nothing changed).
func confirmDeploy(ios *iostreams.IOStreams, o *online, opts *deployOptions, p *loader.PlanReport) error {
	if opts.Yes || opts.DryRun || opts.Conn.Format == "json" || !ios.StdinTTY || !(ios.StdoutTTY || ios.StderrTTY) || p.Changes() == 0 {
		return nil
	}
	if err := o.planTable(ios, p, nil); err != nil {
		return err
	}
	fmt.Fprintf(ios.ErrOut, "Deploy %s: %d change(s) on %d node(s)? Type y to deploy: ", p.LibraryName, p.Changes(), len(p.Nodes))
	line, _ := bufio.NewReader(ios.In).ReadString('\n')
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return nil
	}
	return &cmdutil.ExitError{Code: cmdutil.ExitFindings, Err: errors.New("deploy cancelled: nothing was changed"), Hint: "--yes deploys without asking"}
}
