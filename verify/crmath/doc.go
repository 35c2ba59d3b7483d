// Package crmath computes C's math functions as glibc's libm returns them
// on x86-64 with FMA, bit for bit, where Go's math package can be an ulp
// away (math.Pow(10, 256), math.Exp(1.0000000028613893)): pow, exp, log,
// log10, expm1, sinh, cosh and tanh (explog.go, expm1.go, hyper.go), sin,
// cos and tan (sin_glibc.go, tan_glibc.go, branred.go), atan, atan2, asin
// and acos (atan_glibc.go, asin_glibc.go) are glibc's own algorithms and
// tables, its misrounded results included, with a fused multiply-add
// exactly where the libm's x86-64 FMA build has one and float64() around
// every product that build leaves unfused.
//
// Where the numbers come from: the tables (glibc_tables.go, sincos_table.go,
// tan_table.go, atan_table.go, asin_table.go) are glibc's own data,
// transcribed as hexadecimal floats, and the algorithms are translated
// from its C; each file names its source. glibc is under the GNU Lesser
// General Public License 2.1 or later; the exp, log and pow data come from
// Arm's Optimized Routines, which Arm also publishes under MIT or
// Apache-2.0 WITH LLVM-exception. Only these data reproduce the libm's
// results bit for bit, so the package carries them; a release must carry
// the licences' notices with them.
package crmath
