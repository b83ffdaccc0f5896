#!/usr/bin/env bash
# Issue 26's figures: our engine at 1 s a move against OpenSpiel's MCTS at 1 s and at 10 s
# (time odds), 20 colour-swapped pairs per game and configuration (so both sides of Fox and
# Geese). Hours, not minutes: MCTS uses its whole time on every move. Not part of the tests.
#   benchmarks/openspiel_bars.sh [CONFIGURATION...]   (default: all; see `configurations`)
# Needs the arena's per-player clock (`aviary:mcts?time=10` is that player's own limit).
# Results go to ${OPENSPIEL_BARS:-/tmp/openspiel_bars}/NAME.sqlite; `aviary arena report`.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${OPENSPIEL_BARS:-/tmp/openspiel_bars}
mkdir -p "$out"

declare -A configurations=(
    [pikachu]="--game pikachu --n 8"
    [betsy]="--game betsy"
    [betsy-diagonal]="--game betsy --option kingfisher=diagonal"
    [foxgeese]="--game foxgeese"
    [foxgeese-elephants]="--game foxgeese --option variant=elephants"
    [foxgeese-elephants-shrink]="--game foxgeese --option variant=elephants --option shrink=yes"
    [ijk]="--game ijk --max-plies 4000"
    [ijk-nondet]="--game ijk --option mode=nondet --max-plies 4000"
    [ijk-handout]="--game ijk --option variant=handout --max-plies 1000"
    [ijk-handout-nondet]="--game ijk --option variant=handout --option mode=nondet --max-plies 1000"
)

names=("$@")
[ ${#names[@]} -gt 0 ] || names=("${!configurations[@]}")
for name in "${names[@]}"; do
    [ -n "${configurations[$name]:-}" ] || { echo "unknown configuration $name" >&2; exit 2; }
    # shellcheck disable=SC2086  # the configuration is a list of arguments
    .venv/bin/aviary arena run ${configurations[$name]} --mode gauntlet --time 1 --games 80 \
        --jobs 1 --db "$out/$name.sqlite" "engine=aviary:engine?time=1" \
        "mcts1=aviary:mcts?time=1" "mcts10=aviary:mcts?time=10"
done
