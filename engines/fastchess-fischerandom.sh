#!/bin/sh
# fastchess match of ndchess against itself, Chess960: the start positions
# come from chess960.epd beside this script (all 960, Scharnagl order,
# Shredder-FEN castling letters); fastchess sends
# `setoption name UCI_Chess960 value true`.
NDCHESS="${NDCHESS:-ndchess}"
HERE="$(dirname "$0")"
exec fastchess \
    -engine name=ndchess-a cmd="$NDCHESS" \
    -engine name=ndchess-b cmd="$NDCHESS" \
    -each proto=uci tc=10+0.1 option.Hash=64 option.Threads=1 "option.Move Overhead=30" \
    -variant fischerandom \
    -openings file="$HERE/chess960.epd" format=epd order=random \
    -rounds 1 -games 2 -repeat \
    -pgnout file=ndchess-fischerandom-fastchess.pgn \
    "$@"
