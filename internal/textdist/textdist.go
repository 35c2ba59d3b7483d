// Package textdist measures how far apart two short strings are, for "did
// you mean" suggestions (a manifest field, a command name). It does not
// choose a suggestion; callers set their own limits.
package textdist

// MaxLen bounds the strings Distance compares; longer ones are Far apart.
const MaxLen = 64

// Far is the distance of strings longer than MaxLen.
const Far = 1 << 20

// Distance is the optimal string alignment distance between a and b, in
// bytes: insertions, deletions, substitutions and transpositions of
// adjacent bytes each count 1 ("stauts" is 1 from "status").
func Distance(a, b string) int {
	if len(a) > MaxLen || len(b) > MaxLen {
		return Far
	}
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}
