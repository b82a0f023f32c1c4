#!/bin/sh
# cutechess-cli match of ndchess against itself, Chess960 ("fischerandom"):
# cutechess-cli draws the start positions, sends
# `setoption name UCI_Chess960 value true` and the positions as
# Shredder-FEN; castling moves go both ways as king takes rook.
# NDCHESS overrides the engine command (default: ndchess on PATH).
NDCHESS="${NDCHESS:-ndchess}"
exec cutechess-cli \
    -engine name=ndchess-a cmd="$NDCHESS" \
    -engine name=ndchess-b cmd="$NDCHESS" \
    -each proto=uci tc=10+0.1 option.Hash=64 option.Threads=1 "option.Move Overhead=30" \
    -variant fischerandom \
    -games 2 -repeat -recover \
    -pgnout ndchess-fischerandom.pgn \
    "$@"
