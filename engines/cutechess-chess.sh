#!/bin/sh
# cutechess-cli match of ndchess against itself (or replace the second
# engine), classical chess, 10 s + 0.1 s per game, two games with colours
# reversed. NDCHESS overrides the engine command (default: ndchess on PATH).
# Extra arguments are passed on, e.g. `-games 20 -concurrency 2`.
# The options set here are checked against the engine by tests/protocol/uci_hosts.rs.
NDCHESS="${NDCHESS:-ndchess}"
exec cutechess-cli \
    -engine name=ndchess-a cmd="$NDCHESS" \
    -engine name=ndchess-b cmd="$NDCHESS" \
    -each proto=uci tc=10+0.1 option.Hash=64 option.Threads=1 "option.Move Overhead=30" \
    -variant standard \
    -games 2 -repeat -recover \
    -pgnout ndchess-chess.pgn \
    "$@"
