package difftest

// KnownDivergences maps a snippet name (prefixed "fcall:" for function mode
// only) to the reason it cannot match Redis 7.0.15. Each entry is also in
// verify/README.md under "Known divergences". The corpus tests here and the
// `scriptctl eval` corpus tests fail on any other difference.
var KnownDivergences = map[string]string{
	"edge-cjson-object-three-keys": "table iteration order: cjson.encode writes an object's keys in gopher-lua's order (insertion order), Redis's Lua 5.1 in its hash-table order",
	"edge-pairs-order-two-keys":    "table iteration order: pairs/next visit a table's hash keys in gopher-lua's order (insertion order), not Lua 5.1's hash-table order",
	"edge-cjson-null-metatable":    "cjson.null carries a metatable offline (its __tostring prints Redis's \"userdata: (nil)\"); Redis's lightuserdata has none",
}

// TargetDivergences maps a target (verify.Targets) to the snippets that
// cannot match on that target only (name, or "fcall:" name for function
// mode only) and why. The live corpus and TestRecordedTargets read it.
var TargetDivergences = map[string]map[string]string{}

// TargetMatches maps a target to the KnownDivergences that match on it
// anyway, and why: they are then required to match there.
var TargetMatches = map[string]map[string]string{
	"valkey-8.1": {
		"edge-pairs-order-two-keys": "Valkey 8.1's Lua hashes strings differently from Redis's Lua 5.1 (pairs({x = 1, y = 2}) visits x then y there, y then x on Redis 7.0.15 and Valkey 8.0), which happens to be gopher-lua's insertion order",
	},
}
