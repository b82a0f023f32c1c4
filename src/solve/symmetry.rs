//! Counting solutions up to the board's symmetries.
//!
//! The group used is the board's lattice symmetries that keep the attack
//! relation of every piece kind of the problem. The candidates are the
//! maps `x'_i = ±x_{π(i)} + t_i` of the coordinates: a permutation π of
//! axes of equal length and equal wrapping, a reflection per axis, and on
//! wrapping axes any translation `t_i` (taken modulo the axis). A
//! candidate is kept when it maps cells to cells (a diamond's cells to
//! the diamond), maps every piece's empty-board attack set from `a` onto
//! the piece's attack set from the image of `a`, and maps every ray of a
//! sliding piece, in order, onto a ray of that piece, so that blocking
//! (which cell stands between two others) is kept too. The kept maps form
//! a group (the candidates do, and each condition is kept under
//! composition and inverse), so the least image of a solution under the
//! group is a canonical form.
//!
//! So on a square with the chess pieces this is the dihedral group of 8
//! maps, with pawns (which attack forwards) only the mirror of the files;
//! the cylinder adds the file rotations, the torus the rotations of both
//! axes, the cube the 48 maps of the 3-D cube (6 with pawns: they keep
//! the pawns' direction). Maps outside this family that happen to keep a
//! relation (the knight graph of 4x4 has some, the torus queens' graph
//! has multiplications) are not used.

use std::collections::HashSet;

use super::{Board, SolveError};

/// A symmetry: the image of every cell.
pub type CellMap = Vec<usize>;

/// More candidate maps than this are not tried (a 6-D board has
/// 6!·2⁶ = 46,080 before translations).
const MAX_CANDIDATES: u64 = 2_000_000;

/// One lattice map: `x'_i = sign_i · x_{perm_i} + shift_i`.
struct LatticeMap {
    perm: Vec<usize>,
    sign: Vec<i32>,
    shift: Vec<i32>,
}

/// The symmetries of the board that keep the attack relation of `kinds`
/// (the identity first).
pub fn symmetries(board: &Board, kinds: &[usize]) -> Result<Vec<CellMap>, SolveError> {
    let v = &board.variant;
    let g = &v.geometry;
    let n = g.dims();
    let lens: Vec<i32> = g.lens().iter().map(|&l| l as i32).collect();
    let wraps = g.wraps();
    let perms = axis_permutations(n, |i, j| lens[i] == lens[j] && wraps[i] == wraps[j]);
    let shifts: u64 = (0..n)
        .filter(|&i| wraps[i])
        .map(|i| lens[i] as u64)
        .product();
    let candidates = perms.len() as u64 * (1u64 << n) * shifts;
    if candidates > MAX_CANDIDATES {
        return Err(SolveError::OutOfReach(format!(
            "{candidates} candidate symmetries of {} (at most {MAX_CANDIDATES} are tried)",
            v.spec
        )));
    }
    let attacks: Vec<Vec<Vec<usize>>> = kinds.iter().map(|&k| board.empty_attacks(k)).collect();
    let cells = g.cell_count();
    let mut out: Vec<CellMap> = Vec::new();
    let mut x = vec![0i32; n];
    for perm in &perms {
        for signs in 0..(1u32 << n) {
            let sign: Vec<i32> = (0..n)
                .map(|i| if signs >> i & 1 == 1 { -1 } else { 1 })
                .collect();
            for t in 0..shifts {
                // The translation of each wrapping axis, mixed radix.
                let mut rest = t;
                let shift: Vec<i32> = (0..n)
                    .map(|i| {
                        if wraps[i] {
                            let s = (rest % lens[i] as u64) as i32;
                            rest /= lens[i] as u64;
                            s
                        } else if sign[i] < 0 {
                            lens[i] - 1
                        } else {
                            0
                        }
                    })
                    .collect();
                let m = LatticeMap {
                    perm: perm.clone(),
                    sign: sign.clone(),
                    shift,
                };
                let image: Option<CellMap> = (0..cells)
                    .map(|c| {
                        m.apply(g.coords(c), &lens, &mut x);
                        g.cell_at(&x)
                    })
                    .collect();
                let Some(image) = image else { continue };
                if keeps_attacks(board, kinds, &attacks, &m, &image) && !out.contains(&image) {
                    out.push(image);
                }
            }
        }
    }
    Ok(out)
}

impl LatticeMap {
    /// The image of the coordinates `c`, written to `x`.
    fn apply(&self, c: &[i16], lens: &[i32], x: &mut [i32]) {
        for i in 0..x.len() {
            x[i] = (self.sign[i] * c[self.perm[i]] as i32 + self.shift[i]).rem_euclid(lens[i]);
        }
    }

    /// The image of a direction vector (translations do not move it).
    fn direction(&self, d: &[i32]) -> Vec<i32> {
        (0..d.len())
            .map(|i| self.sign[i] * d[self.perm[i]])
            .collect()
    }
}

/// Whether `image` keeps every kind's attack sets and slider rays.
fn keeps_attacks(
    board: &Board,
    kinds: &[usize],
    attacks: &[Vec<Vec<usize>>],
    m: &LatticeMap,
    image: &[usize],
) -> bool {
    let v = &board.variant;
    let g = &v.geometry;
    let sets_kept = attacks.iter().all(|att| {
        (0..image.len()).all(|a| {
            let mut mapped: Vec<usize> = att[a].iter().map(|&b| image[b]).collect();
            mapped.sort_unstable();
            mapped == att[image[a]]
        })
    });
    sets_kept
        && kinds.iter().all(|&k| {
            v.kinds[k].slides.iter().all(|&d| {
                let Some(d2) = g.direction_index(&m.direction(&g.directions()[d])) else {
                    return false;
                };
                v.kinds[k].slides.contains(&d2)
                    && (0..image.len()).all(|a| {
                        let ray = g.ray(a, d);
                        let target = g.ray(image[a], d2);
                        ray.len() == target.len()
                            && ray
                                .iter()
                                .zip(target)
                                .all(|(&r, &t)| image[r as usize] == t as usize)
                    })
            })
        })
}

/// The permutations π of `0..n` with `allowed(i, π(i))` for every `i`
/// (the identity first).
fn axis_permutations(n: usize, allowed: impl Fn(usize, usize) -> bool) -> Vec<Vec<usize>> {
    fn extend(
        n: usize,
        allowed: &dyn Fn(usize, usize) -> bool,
        prefix: &mut Vec<usize>,
        out: &mut Vec<Vec<usize>>,
    ) {
        if prefix.len() == n {
            out.push(prefix.clone());
            return;
        }
        let i = prefix.len();
        for j in 0..n {
            if !prefix.contains(&j) && allowed(i, j) {
                prefix.push(j);
                extend(n, allowed, prefix, out);
                prefix.pop();
            }
        }
    }
    let mut out = Vec::new();
    extend(n, &allowed, &mut Vec::new(), &mut out);
    out
}

/// How many of `solutions` (pieces as (cell, kind)) are distinct up to
/// the maps.
pub fn count_unique(solutions: &[Vec<(usize, usize)>], maps: &[CellMap]) -> usize {
    let mut seen: HashSet<Vec<(usize, usize)>> = HashSet::new();
    for s in solutions {
        let canonical = maps
            .iter()
            .map(|m| {
                let mut t: Vec<(usize, usize)> = s.iter().map(|&(c, k)| (m[c], k)).collect();
                t.sort_unstable();
                t
            })
            .min()
            .unwrap_or_else(|| s.clone());
        seen.insert(canonical);
    }
    seen.len()
}
