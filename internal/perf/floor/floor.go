// Package floor is what the deploy floors BenchmarkDeployCluster runs
// (internal/perf/funcload, internal/perf/funcdeploy) send as scriptctl
// does: the rueidis options of its connections and the scripts of its
// deploy. It links rueidis only, so a floor links no scriptctl package;
// internal/connect's and loader's tests check that these are scriptctl's
// own (TestFloorOption, TestFloorScripts).
package floor

import "github.com/redis/rueidis"

// Option is the rueidis options of scriptctl's connection to the node at
// addr (internal/connect's Config.Option) without its reply-limit guard
// (DialCtxFn) and dial timeout: the floor checks nothing scriptctl checks.
func Option(addr string) rueidis.ClientOption {
	return rueidis.ClientOption{
		InitAddress:         []string{addr},
		DisableCache:        true,
		ForceSingleClient:   true,
		DisableRetry:        true,
		AlwaysRESP2:         true,
		ReadBufferEachConn:  1 << 14,
		WriteBufferEachConn: 1 << 14,
		RingScaleEachConn:   2,
		PipelineMultiplex:   -1,
		ClientSetInfo:       rueidis.DisableClientSetInfo,
	}
}

// Dial connects to the node at addr with Option.
func Dial(addr string) (rueidis.Client, error) { return rueidis.NewClient(Option(addr)) }

// The deploy lock's release (loader/lock.go's releaseScript).
const ReleaseScript = `if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1])
  return 1
end
return 0`

// The permission probes' library name and the script asking, inside EVAL,
// for the lock scripts' commands (loader/acl.go's aclProbeLibrary and
// aclInnerScript).
const (
	ProbeLibrary   = "scriptctl_acl_probe"
	ACLInnerScript = `for _, c in ipairs({{'GET', KEYS[1]}, {'PEXPIRE', KEYS[1], '1'}, {'DEL', KEYS[1]}}) do
  if not redis.acl_check_cmd(unpack(c)) then return string.lower(c[1]) end
end
return ''`
)
