#!/usr/bin/env bash
# The xboard GUI games CI runs (tests/xboard_gui.rs checks their logs):
#   normal, fischerandom, cylinder, torus   ndchess against ndchess
#   cylinder-fairymax-white                 ndchess (White) against Fairy-Max
#   cylinder-fairymax-black                 Fairy-Max (White) against ndchess
# Each game goes to OUTDIR/NAME/ (game.pgn, final.png, xboard.debug, cmd.txt);
# see gui-game.sh. The PGNs are printed and the screenshots listed at the end.
#
#   engines/xboard/ci-games.sh [OUTDIR]      (default: ci-logs/xboard/)
#
# Environment: NDCHESS (engine binary; default target/release/ndchess if it
# exists, else ndchess on PATH), FAIRYMAX (default /usr/games/fairymax),
# XBOARD_TC / XBOARD_INC (default 0:15 and 0.15), JOBS (games at once,
# default 2), GAME_TIMEOUT (seconds per game, default 300).
#
# Exit status: the number of games that did not end with a result.
set -u

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
out=${1:-$repo/ci-logs/xboard}
if [ -z "${NDCHESS:-}" ]; then
    if [ -x "$repo/target/release/ndchess" ]; then
        NDCHESS=$repo/target/release/ndchess
    else
        NDCHESS=$(command -v ndchess) || { echo "ci-games: no ndchess binary (set NDCHESS)" >&2; exit 2; }
    fi
fi
FAIRYMAX=${FAIRYMAX:-/usr/games/fairymax}
tc=${XBOARD_TC:-0:15}
inc=${XBOARD_INC:-0.15}
jobs=${JOBS:-2}
timeout=${GAME_TIMEOUT:-300}
mkdir -p "$out"

nd="$NDCHESS xboard"
# Every game:
# - an increment and no move animation: xboard charges the time it spends
#   animating and drawing a move to the engine that made it, so without
#   them short games were lost on time by the engine with less slack.
#   xboard sends this as "level 0 0:15 0.15". No flag fell in test runs
#   at 0:10 + 0.1, 0:15 + 0.15 or 0:20 + 0.2, but in long games the
#   engine's clock gets down to about two increments at any of them
#   (lowest seen: 0.19 s, 0.25 s, 0.28 s), so a longer control buys
#   little; 0:15 + 0.15 keeps the six games near 2.5 minutes;
# - -xponder ("easy"): no pondering, so each game keeps one core busy and
#   two games fit on a 2-core CI machine without starving each other;
# - -soundMove "": the system xboard.conf plays a sound per move through
#   aplay, which has no sound card here and only fills the log with errors.
common=(-tc "$tc" -inc "$inc" -animateMoving false -xponder -soundMove "")
# WrapCastling=0: xboard's cylinder (and Fairy-Max's) knows only the two
# classical castlings, so with xboard refereeing (legality testing on)
# ndchess must not play the round-the-back ones.
nowrap="WrapCastling=0"

declare -a names=() pids=()
failed=0

finish_one() {
    # Wait for the oldest running game (keeps at most $jobs at once).
    local name=${names[0]} pid=${pids[0]}
    names=("${names[@]:1}")
    pids=("${pids[@]:1}")
    if ! wait "$pid"; then
        echo "ci-games: $name FAILED (see $out/$name/)" >&2
        failed=$((failed + 1))
    fi
}

game() {
    local name=$1
    shift
    while [ "${#pids[@]}" -ge "$jobs" ]; do finish_one; done
    echo "ci-games: starting $name" >&2
    "$here/gui-game.sh" "$out/$name" "$timeout" "$@" "${common[@]}" &
    names+=("$name")
    pids+=("$!")
    # xvfb-run -a picks a free display number by looking for lock files;
    # it recovers when another start took the same number in the same
    # instant, but spacing the starts keeps that from happening at all.
    sleep 1
}

game normal -fcp "$nd" -scp "$nd" -variant normal
game fischerandom -fcp "$nd" -scp "$nd" -variant fischerandom
game cylinder -fcp "$nd" -scp "$nd" -variant cylinder \
    -firstOptions "$nowrap" -secondOptions "$nowrap"
# xboard has no rule for a wrapping rank: it cannot referee the torus, so
# legality testing is off and the engines' own result claims end the game.
game torus -fcp "$nd" -scp "$nd" -variant torus -testLegality false
# Fairy-Max 5.0b sometimes crashes on the "computer" command (lab study),
# so it is not sent to Fairy-Max. The first engine's "piece" definitions
# are the ones xboard referees with: ndchess's in the first game,
# Fairy-Max's in the second.
game cylinder-fairymax-white -fcp "$nd" -scp "$FAIRYMAX" -variant cylinder \
    -firstOptions "$nowrap" -secondComputerString ""
game cylinder-fairymax-black -fcp "$FAIRYMAX" -scp "$nd" -variant cylinder \
    -secondOptions "$nowrap" -firstComputerString ""
while [ "${#pids[@]}" -gt 0 ]; do finish_one; done

for pgn in "$out"/*/game.pgn; do
    [ -f "$pgn" ] || continue
    echo "=== $pgn"
    cat "$pgn"
    echo
done
echo "=== screenshots"
for png in "$out"/*/final.png; do
    [ -f "$png" ] && echo "$(wc -c <"$png") bytes  $png"
done
echo "ci-games: $failed game(s) without a result" >&2
exit "$failed"
