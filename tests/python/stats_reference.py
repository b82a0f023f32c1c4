"""An independent computation of the arbiter's match statistics, written
from the published formulas (not from the Rust code), with Python's
standard library only (math.erf, statistics.NormalDist).

Sources of the formulas:
- Elo, error margin, LOS, draw ratio from W/D/L: cutechess-cli,
  projects/lib/src/elo.cpp (mean score, per-game variance, the interval of
  the mean mapped through -400*log10(1/p - 1), LOS = (1 + erf((W-L) /
  sqrt(2(W+L))))/2).
- Pentanomial Elo and interval: the same with game pairs as the unit, each
  pair's score halved (fastchess's pentanomial report).
- SPRT: the GSPRT log-likelihood ratio of M. Van den Bergh ("A practical
  introduction to the GSPRT", as in fishtest's stat_util.LLR_logistic),
  N (s1 - s0)(2 mu - s0 - s1) / (2 var) with zero counts regularised to
  1e-3, and Wald's bounds ln(beta/(1-alpha)), ln((1-beta)/alpha). A
  sample of one kind of outcome, whose variance is zero, takes the
  variance of the same sample with one result at the far end of the scale
  added (the project's decision, docs/arbiter.md).

Prints the figures that tests/arbiter/stats.rs asserts.
"""
import math
import statistics
from statistics import NormalDist


def elo(p):
    return -400.0 * math.log10(1.0 / p - 1.0)


def score_of(e):
    return 1.0 / (1.0 + 10 ** (-e / 400.0))


def interval(outcomes, counts):
    n = sum(counts)
    mu = sum(o * c for o, c in zip(outcomes, counts)) / n
    var = sum(c * (o - mu) ** 2 for o, c in zip(outcomes, counts)) / n
    se = math.sqrt(var / n)
    z = NormalDist().inv_cdf(0.975)
    return elo(mu), (elo(mu + z * se) - elo(mu - z * se)) / 2


def llr(outcomes, counts, elo0, elo1):
    s0, s1 = score_of(elo0), score_of(elo1)
    seen = [o for o, c in zip(outcomes, counts) if c > 0]
    if len(seen) == 1:
        # One kind of outcome: its mean, and the variance of the same
        # sample with one result at the far end of the scale added.
        n, mu = sum(counts), seen[0]
        far = max(outcomes, key=lambda o: abs(o - mu))
        extended = [mu] * n + [far]
        var = statistics.pvariance(extended)
        return n * (s1 - s0) * (2 * mu - s0 - s1) / (2 * var)
    counts = [max(c, 1e-3) for c in counts]
    n = sum(counts)
    mu = sum(o * c for o, c in zip(outcomes, counts)) / n
    var = sum(c * (o - mu) ** 2 for o, c in zip(outcomes, counts)) / n
    s0, s1 = score_of(elo0), score_of(elo1)
    return n * (s1 - s0) * (2 * mu - s0 - s1) / (2 * var)


for w, d, l in [(120, 200, 80), (33, 40, 27), (5, 90, 5)]:
    e, err = interval([1.0, 0.5, 0.0], [w, d, l])
    los = 0.5 * (1 + math.erf((w - l) / math.sqrt(2 * (w + l))))
    print(f"wdl {w}/{d}/{l}: elo {e:.4f} error {err:.4f} los {los:.6f} "
          f"draws {d / (w + d + l):.6f} llr(0,5) {llr([1, 0.5, 0], [w, d, l], 0, 5):.5f}")

for penta in [(10, 40, 100, 35, 15), (3, 20, 50, 22, 5)]:
    e, err = interval([0, 0.25, 0.5, 0.75, 1.0], penta)
    print(f"penta {penta}: elo {e:.4f} error {err:.4f} "
          f"llr(0,5) {llr([0, 0.25, 0.5, 0.75, 1.0], penta, 0, 5):.5f}")

# Young samples: one kind of outcome only, then a second kind.
for w, d, l in [(0, 0, 1), (0, 0, 20), (0, 1, 5)]:
    print(f"young wdl {w}/{d}/{l}: llr(0,5) {llr([1, 0.5, 0], [w, d, l], 0, 5):.5f}")
for penta in [(0, 0, 0, 0, 4), (0, 0, 3, 0, 0)]:
    print(f"young penta {penta}: llr(0,5) "
          f"{llr([0, 0.25, 0.5, 0.75, 1.0], penta, 0, 5):.5f}")

a, b = 0.05, 0.05
print(f"bounds {math.log(b / (1 - a)):.6f} {math.log((1 - b) / a):.6f}")
print(f"erf(0.5) {math.erf(0.5):.15f} erf(3.5) {math.erf(3.5):.15f}")
