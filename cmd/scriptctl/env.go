package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/scriptctl/scriptctl/internal/cmdutil"
	"github.com/scriptctl/scriptctl/internal/connect"
	"github.com/scriptctl/scriptctl/loader"
	"github.com/scriptctl/scriptctl/manifest"
)

const envHelp = `
Environments:
  --env NAME connects to an environment the manifest declares under
  environments: (its urls or url_env, password_env or password_file, tls),
  and expects what it says there: its targets (instead of the manifest's)
  and its topology (a cluster or a standalone server; another refuses the
  run, exit 1). --url, --password-file and the --tls flags override the
  environment's fields; SCRIPTCTL_URL does not apply, and SCRIPTCTL_PASSWORD
  or REDISCLI_AUTH only when the environment names no password source. An
  unknown NAME is a usage error (exit 2) naming the closest.`

// environment returns the manifest's environment --env names, nil without
// --env. The manifest is the command's -m (read once); an unknown name is
// a usage error with a did-you-mean.
func (f *connFlags) environment() (*manifest.Environment, error) {
	if f.Env == "" {
		return nil, nil
	}
	if f.env != nil {
		return f.env, nil
	}
	path := "manifest.yaml"
	if f.cmd != nil {
		if fl := f.cmd.Flag("manifest"); fl != nil {
			path = fl.Value.String()
		}
	}
	m, err := loadManifestFor(path)
	if err != nil {
		return nil, err
	}
	e, err := m.LookupEnvironment(f.Env)
	if err != nil {
		hint := "add it under environments: in " + m.Path
		if len(m.Environments) > 0 {
			hint = fmt.Sprintf("--env %s", m.EnvironmentNames()[0])
			var ue *manifest.UnknownEnvironmentError
			if errors.As(err, &ue) && ue.Suggest != "" {
				hint = "--env " + ue.Suggest
			}
		}
		return nil, cmdutil.Usage(fmt.Errorf("--env: %w", err), hint)
	}
	f.env = e
	return e, nil
}

// applyEnvironment fills in what e gives and the flags do not: the URLs
// (when no --url), the password (when no --password-file), the TLS files.
// fromEnv reports URLs read from an environment variable (url_env), which
// may carry a password as SCRIPTCTL_URL may.
func (f *connFlags) applyEnvironment(s *connect.Settings, e *manifest.Environment) (fromEnv bool, err error) {
	if len(f.URLs) == 0 {
		s.Source = "environment " + e.Name
		if e.URLEnv != "" {
			s.URLs = connect.SplitURLs(os.Getenv(e.URLEnv))
			if len(s.URLs) == 0 {
				return false, &connect.InputError{Err: fmt.Errorf("environment %s: $%s (its url_env) is not set", e.Name, e.URLEnv)}
			}
			fromEnv = true
		} else {
			s.URLs = e.URLs
		}
	}
	if f.PasswordFile == "" {
		switch {
		case e.PasswordFile != "":
			s.Password, err = connect.ReadPasswordFile(e.PasswordFile)
			if err != nil {
				return fromEnv, fmt.Errorf("environment %s: password_file: %w", e.Name, err)
			}
		case e.PasswordEnv != "":
			s.Password = os.Getenv(e.PasswordEnv)
			if s.Password == "" {
				return fromEnv, &connect.InputError{Err: fmt.Errorf("environment %s: $%s (its password_env) is not set", e.Name, e.PasswordEnv)}
			}
		case os.Getenv("SCRIPTCTL_PASSWORD") != "":
			// An environment that names no password source takes the
			// usual variables.
			s.Password = os.Getenv("SCRIPTCTL_PASSWORD")
		default:
			s.Password = os.Getenv("REDISCLI_AUTH")
		}
	}
	for _, p := range []struct{ flag, env *string }{
		{&s.TLSCA, &e.TLSCA}, {&s.TLSCert, &e.TLSCert}, {&s.TLSKey, &e.TLSKey}, {&s.TLSServer, &e.TLSServerName},
	} {
		if *p.flag == "" {
			*p.flag = *p.env
		}
	}
	return fromEnv, nil
}

// checkTopology refuses (exit 1) servers whose topology is not the one the
// environment expects.
func checkTopology(e *manifest.Environment, topo *loader.Topology) error {
	if e == nil || e.Topology == "" {
		return nil
	}
	got := manifest.TopologyStandalone
	if topo.Cluster {
		got = manifest.TopologyCluster
	}
	if got == e.Topology {
		return nil
	}
	return &cmdutil.ExitError{Code: cmdutil.ExitFindings,
		Err:  fmt.Errorf("environment %s expects a %s, but the servers are a %s: nothing was changed", e.Name, e.Topology, got),
		Hint: fmt.Sprintf("check the environment's urls, or its topology field (manifest line %d)", e.Line)}
}
