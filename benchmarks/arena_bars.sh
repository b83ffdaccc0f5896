#!/usr/bin/env bash
# The arena's three bars, as run for the README (each takes minutes, not part of the tests):
#   benchmarks/arena_bars.sh misbehaving   20 games: our engine, the textbook opponent, 7 bad programs
#   benchmarks/arena_bars.sh timing        2 games at a time at 1 s a move: engine time use
#   benchmarks/arena_bars.sh resume        kill -9 part-way, resume, count the games
# Results go to ${ARENA_BARS:-/tmp/arena_bars}.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${ARENA_BARS:-/tmp/arena_bars}
mkdir -p "$out"
py=.venv/bin/python
engine="engine=$py -m aviary pikachu"

count() { $py -c "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); print(c.execute(
    'SELECT COUNT(*), COUNT(DISTINCT id), MIN(id), MAX(id) FROM games').fetchone())" "$1"; }

engine_times() { $py - "$1" <<'EOF'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
mine = "((m.mover = 0 AND g.first LIKE 'engine%') OR (m.mover = 1 AND g.second LIKE 'engine%'))"
row = c.execute("SELECT COUNT(*), AVG(m.seconds), MAX(m.seconds), AVG(m.wall), MAX(m.wall)"
                f" FROM moves m JOIN games g ON g.id = m.game WHERE {mine}").fetchone()
print(f"engine moves {row[0]}: last line at mean {row[1]:.3f} s, max {row[2]:.3f} s;"
      f" process ran mean {row[3]:.3f} s, max {row[4]:.3f} s")
lost = c.execute("SELECT id, reason, detail FROM games WHERE reason IN"
                 " ('timeout', 'illegal', 'crash', 'no-output') AND ((winner = 1 AND first LIKE"
                 " 'engine%') OR (winner = 0 AND second LIKE 'engine%'))").fetchall()
print(f"engine forfeits: {lost}")
EOF
}

case "${1:-}" in
misbehaving)
    $py tests/arena/arena_programs.py "$out/bad" > "$out/bad.txt"
    mapfile -t bad < "$out/bad.txt"
    rm -f "$out"/misbehaving.sqlite*
    time .venv/bin/aviary arena run --mode gauntlet --time 1 --games 20 --jobs 2 \
        --db "$out/misbehaving.sqlite" "$engine" "textbook=aviary:textbook?depth=3" "${bad[@]}"
    $py tests/arena/arena_programs.py "$out/bad" "$out/misbehaving.sqlite"
    engine_times "$out/misbehaving.sqlite"
    ;;
timing)
    rm -f "$out"/timing.sqlite*
    time .venv/bin/aviary arena run --mode gauntlet --time 1 --games 8 --max-plies 120 \
        --jobs 2 --db "$out/timing.sqlite" "$engine" "engine2=$py -m aviary pikachu" \
        "textbook=aviary:textbook?depth=3"
    engine_times "$out/timing.sqlite"
    ;;
resume)
    rm -f "$out"/resume.sqlite*
    .venv/bin/aviary arena run --time 0.5 --games 8 --max-plies 40 --jobs 2 \
        --db "$out/resume.sqlite" "$engine" "textbook=aviary:textbook?depth=3" \
        > "$out/resume-killed.log" 2>&1 &
    arena=$!
    stored() { $py -c "import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute(
        'SELECT COUNT(*) FROM games').fetchone()[0])" "$1" 2>/dev/null || echo 0; }
    until [ "$(stored "$out/resume.sqlite")" -ge 3 ]; do
        sleep 0.2
    done
    kill -9 "$arena"
    wait "$arena" || true
    echo "stored when killed (count, distinct ids, min id, max id): $(count "$out/resume.sqlite")"
    sleep 1
    echo "player processes left after the kill: $(pgrep -fc 'aviary pikachu' || true)"
    time .venv/bin/aviary arena resume "$out/resume.sqlite" --jobs 2 > "$out/resume.log"
    echo "after resume (count, distinct ids, min id, max id): $(count "$out/resume.sqlite")"
    ;;
*)
    echo "usage: $0 misbehaving|timing|resume" >&2
    exit 2
    ;;
esac
