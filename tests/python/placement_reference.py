"""An independent count of non-attacking queens on the 8x8 cylinder (files
wrap) and the 14x8 torus (ranks and files wrap), for tests/solve.rs:
queens attack along ranks, files and diagonals walked cell by cell with the
wrapping coordinates, written from RULES 2.3/2.4 without the engine.
Prints "cylinder Q <max> <count> <unique>" and "torus Q <max> <count>
<unique>", where <unique> counts the maximum sets up to the board's obvious
geometric maps, listed here by hand: on the cylinder the 8 rotations of the
files times the mirrors of files and ranks (32 maps), on the torus the
14 x 8 translations times the mirrors of files and ranks (448 maps; the
sides differ, so no transposition).
"""


def attacks(a, b, ranks, files, wrap_r, wrap_f):
    (r1, f1), (r2, f2) = a, b
    if r1 == r2 or f1 == f2:
        return True
    for s1 in (1, -1):
        for s2 in (1, -1):
            r, f = r1, f1
            for _ in range(2 * max(ranks, files)):
                r, f = r + s1, f + s2
                if wrap_r:
                    r %= ranks
                elif not 0 <= r < ranks:
                    break
                if wrap_f:
                    f %= files
                elif not 0 <= f < files:
                    break
                if (r, f) == (r1, f1):
                    break
                if (r, f) == (r2, f2):
                    return True
    return False


def maximum(ranks, files, wrap_r, wrap_f):
    cells = [(r, f) for r in range(ranks) for f in range(files)]
    best = [0, 0]
    sets = []

    def go(i, chosen):
        # At most one queen per rank.
        left = ranks - (cells[i][0] if i < len(cells) else ranks)
        if len(chosen) + left < best[0]:
            return
        if i == len(cells):
            if len(chosen) > best[0]:
                best[:] = [len(chosen), 0]
                sets.clear()
            if len(chosen) == best[0]:
                best[1] += 1
                sets.append(list(chosen))
            return
        c = cells[i]
        if all(not attacks(c, d, ranks, files, wrap_r, wrap_f) for d in chosen):
            chosen.append(c)
            go(i + 1, chosen)
            chosen.pop()
        go(i + 1, chosen)

    go(0, [])
    return best + [unique(sets, ranks, files, wrap_r, wrap_f)]


def unique(sets, ranks, files, wrap_r, wrap_f):
    maps = []
    for mr in (False, True):
        for mf in (False, True):
            for tr in range(ranks if wrap_r else 1):
                for tf in range(files if wrap_f else 1):
                    maps.append((mr, mf, tr, tf))

    def image(cell, m):
        (r, f), (mr, mf, tr, tf) = cell, m
        r = ranks - 1 - r if mr else r
        f = files - 1 - f if mf else f
        return ((r + tr) % ranks, (f + tf) % files)

    seen = set()
    for s in sets:
        seen.add(min(tuple(sorted(image(c, m) for c in s)) for m in maps))
    return len(seen)


print("cylinder Q", *maximum(8, 8, False, True))
print("torus Q", *maximum(14, 8, True, True))
