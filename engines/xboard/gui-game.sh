#!/bin/sh
# Play ONE unattended engine-vs-engine game in the real xboard GUI and keep
# the evidence: OUTDIR/game.pgn, OUTDIR/final.png (the main window at the
# end) and OUTDIR/xboard.debug (xboard's full protocol trace).
#
#   engines/xboard/gui-game.sh OUTDIR TIMEOUT_SECONDS XBOARD_OPTION...
#   e.g. engines/xboard/gui-game.sh out/normal 120 \
#          -fcp "ndchess xboard" -scp "ndchess xboard" -variant normal \
#          -tc 0:15 -inc 0.15 -animateMoving false
#
# Exit status: 0 when the PGN holds a finished game (1-0, 0-1 or 1/2-1/2),
# non-zero otherwise (timeout, xboard error, game aborted).
#
# The X server: by default the script re-runs itself under its own Xvfb
# (xvfb-run -a), so no window reaches a desktop. Set
# GUI_GAME_DISPLAY=existing to use the DISPLAY you already have instead (a
# real desktop with a window manager may refuse the window move, so the
# popup can end up on the shot). Windows are looked up by xboard's pid, so
# other xboards on the same display are never touched.
#
# Why the game is run this way (see the xboard lab report for the runs):
# - No -xexit: with it xboard closes its window ~10 ms after the result, too
#   fast to photograph. Without it, xboard opens a popup titled "Exiting"
#   when the match is over and waits; that popup is our "game over" signal.
#   We move it off the board, take the shot, then SIGTERM xboard, which
#   exits gracefully (sends "quit" to both engines).
# - -autoCallFlag true: in engine-vs-engine play xboard does not call a
#   fallen flag by itself, so a hung engine would otherwise run the clock
#   negative until our timeout instead of losing on time.
# - HOME is a fresh temporary directory and settings are neither read from
#   nor saved to the user's ~/.xboardrc, so nothing leaks in or out.
set -u

if [ $# -lt 2 ]; then
    echo "usage: $0 OUTDIR TIMEOUT_SECONDS XBOARD_OPTION..." >&2
    exit 2
fi

XBOARD=${XBOARD:-/usr/games/xboard}
[ -x "$XBOARD" ] || XBOARD=$(command -v xboard) || {
    echo "gui-game: xboard not found" >&2
    exit 2
}

# Exit status of the inner run when its X display does not answer.
NO_DISPLAY=75

if [ "${GUI_GAME_IN_XVFB:-}" != 1 ] && [ "${GUI_GAME_DISPLAY:-}" != existing ]; then
    # Outer run: start an Xvfb and run this script again inside it.
    # 1600x1200 leaves room for the tallest board we use (8x14 torus) and
    # for a corner far from the board to park the popup and the pointer.
    # -noreset: by default an X server resets when its last client leaves
    # and refuses connections meanwhile; the short xdotool calls right
    # before xboard starts then made xboard fail with "cannot open
    # display" in about one start in twenty. Should a display still not
    # answer, the inner run says so (status NO_DISPLAY) and we try a new
    # Xvfb; xvfb-run kills each one when the inner run ends.
    mkdir -p "$1" && : >"$1/xvfb.log" || exit 2
    GUI_GAME_PIDFILE=$(mktemp "${TMPDIR:-/tmp}/gui-game-pid.XXXXXX") || exit 2
    export GUI_GAME_PIDFILE
    # A signal to this outer run must reach the inner one, which cleans up.
    trap 'kill -TERM "$(cat "$GUI_GAME_PIDFILE" 2>/dev/null)" 2>/dev/null' INT TERM HUP
    tries=0
    while :; do
        : >"$GUI_GAME_PIDFILE"
        GUI_GAME_IN_XVFB=1 xvfb-run -a \
            -e "$1/xvfb.log" -s "-screen 0 1600x1200x24 -noreset" /bin/sh "$0" "$@" &
        child=$!
        # wait returns early when a trapped signal arrives: wait again
        # until the child is really gone.
        while :; do
            wait "$child"
            rc=$?
            kill -0 "$child" 2>/dev/null || break
        done
        tries=$((tries + 1))
        if [ "$rc" -ne "$NO_DISPLAY" ] || [ "$tries" -ge 3 ]; then
            rm -f "$GUI_GAME_PIDFILE"
            exit "$rc"
        fi
        echo "gui-game: X display did not answer, starting another" >&2
    done
fi

[ -n "${GUI_GAME_PIDFILE:-}" ] && echo $$ >"$GUI_GAME_PIDFILE"
if ! xdotool getdisplaygeometry >/dev/null 2>&1; then
    echo "gui-game: cannot use X display '${DISPLAY:-}'" >&2
    exit $NO_DISPLAY
fi

OUT=$1
TIMEOUT=$2
shift 2
case $TIMEOUT in
    '' | *[!0-9]*) echo "gui-game: TIMEOUT_SECONDS must be a whole number, got '$TIMEOUT'" >&2; exit 2 ;;
esac
mkdir -p "$OUT" || exit 2
# -sgf appends, so a stale game from an earlier run must not pass the check.
rm -f "$OUT/game.pgn" "$OUT/xboard.debug" "$OUT/final.png" "$OUT/xboard.stdout" \
    "$OUT/xboard.stderr" "$OUT/xboard.stderr.no-display"

TMPHOME=$(mktemp -d "${TMPDIR:-/tmp}/gui-game-home.XXXXXX") || exit 2
HOME=$TMPHOME
export HOME

XB=""
cleanup() {
    if [ -n "$XB" ]; then
        # xboard was started as the leader of its own process group, and the
        # engines inherit that group: whatever survived the graceful exit is
        # killed by group id, which touches nothing we did not start. (xboard
        # was seen to hang after SIGTERM when stopped early in a game. And
        # no "--" before the group id: dash's kill takes it for a pid.)
        kill -TERM "$XB" 2>/dev/null
        i=0
        while kill -0 "$XB" 2>/dev/null && [ $i -lt 50 ]; do
            sleep 0.2
            i=$((i + 1))
        done
        kill -KILL "-$XB" 2>/dev/null
        XB=""
    fi
    rm -rf "$TMPHOME"
}
trap 'cleanup; exit 130' INT TERM HUP

printf '%s\n' "$XBOARD" "$@" >"$OUT/cmd.txt"

# The pointer sits in the screen's middle by default, over the board, where
# it can raise a help tooltip that would cover squares on the screenshot.
xdotool mousemove 1 1199 2>/dev/null

# setsid: xboard leads a new process group (its pid is the group id), so the
# cleanup above can reach the engines it spawned.
setsid "$XBOARD" -mm -sgf "$OUT/game.pgn" \
    -debugMode true -nameOfDebugFile "$OUT/xboard.debug" \
    -saveSettingsOnExit false -settingsFile "$TMPHOME/xboardrc" \
    -popupMoveErrors false -autoCallFlag true \
    "$@" >"$OUT/xboard.stdout" 2>"$OUT/xboard.stderr" &
XB=$!

EXITWIN=""
i=0
while kill -0 "$XB" 2>/dev/null; do
    EXITWIN=$(xdotool search --all --pid "$XB" --name '^Exiting$' 2>/dev/null | head -n 1)
    [ -n "$EXITWIN" ] && break
    i=$((i + 1))
    if [ $i -ge $((TIMEOUT * 5)) ]; then
        echo "gui-game: no result after ${TIMEOUT}s, stopping xboard" >&2
        break
    fi
    sleep 0.2
done
if [ -z "$EXITWIN" ] && ! kill -0 "$XB" 2>/dev/null; then
    echo "gui-game: xboard exited before the match ended (see $OUT/xboard.stderr)" >&2
fi

# The main window's title is "<white> vs. <black> ...". Without a window
# manager the popup opens at (0,0) on top of the board: park it in the
# bottom-right corner first. Shoot even after a timeout: the picture of a
# stuck game is the most useful thing to look at.
MAIN=$(xdotool search --all --pid "$XB" --name ' vs\. ' 2>/dev/null | head -n 1)
[ -n "$EXITWIN" ] && xdotool windowmove "$EXITWIN" 1500 1150 2>/dev/null
xdotool mousemove 1 1199 2>/dev/null
sleep 0.5
if [ -n "$MAIN" ]; then
    import -window "$MAIN" "$OUT/final.png"
elif kill -0 "$XB" 2>/dev/null; then
    import -window root "$OUT/final.png"
fi

cleanup
trap - INT TERM HUP

if grep -q 'cannot open display' "$OUT/xboard.stderr" 2>/dev/null; then
    # Keep the evidence: the retry overwrites xboard.stderr.
    mv "$OUT/xboard.stderr" "$OUT/xboard.stderr.no-display"
    exit $NO_DISPLAY
fi
if [ -f "$OUT/game.pgn" ] && grep -Eq '^\[Result "(1-0|0-1|1/2-1/2)"\]' "$OUT/game.pgn"; then
    echo "gui-game: $(grep -E '^\[Result ' "$OUT/game.pgn") in $OUT" >&2
    exit 0
fi
echo "gui-game: no finished game in $OUT/game.pgn" >&2
exit 1
