#!/bin/sh
# fastchess match of ndchess against itself, classical chess, 10 s + 0.1 s,
# one round of two games. NDCHESS overrides the engine command.
NDCHESS="${NDCHESS:-ndchess}"
exec fastchess \
    -engine name=ndchess-a cmd="$NDCHESS" \
    -engine name=ndchess-b cmd="$NDCHESS" \
    -each proto=uci tc=10+0.1 option.Hash=64 option.Threads=1 "option.Move Overhead=30" \
    -rounds 1 -games 2 -repeat \
    -pgnout file=ndchess-chess-fastchess.pgn \
    "$@"
