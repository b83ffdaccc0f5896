"""Many browser games at once against one `aviary serve`: does every engine move stay on time?

Starts `aviary serve` (a child process, as a user would), then plays engine-against-
engine games over the same WebSocket the page uses, measuring each move from the
"go" sent to the "moved" received (what a player waits). Baseline, same run, same
server: one game alone. Then GAMES games at once. Prints p50/p95/max latency, how
far past the time per move the worst move came, errors, and the ratio of the
loaded p95 to the lone game's.

    .venv/bin/python benchmarks/web_load.py [--games 8] [--moves 12] [--seconds 1.0]
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from websockets.asyncio.client import connect

from aviary.errors import ArgumentParser
from script import run_main

ROOT = Path(__file__).resolve().parents[1]
MARGIN = 0.2  # the bar: each move within its time per move plus this


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def post(url: str, body: dict) -> dict:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.loads(response.read())


async def play(base: str, game: str, moves: int, seconds: float,
               latencies: list[float], searched: list[float], errors: list[str]) -> None:
    """Engine-against-engine moves until `moves` are made (new games as games end)."""
    made = 0
    while made < moves:
        view = await asyncio.to_thread(post, f"{base}/api/games/{game}/sessions", {})
        uri = base.replace("http", "ws") + f"/api/sessions/{view['id']}/think"
        async with connect(uri) as socket_:
            while made < moves and view["outcome"] is None:
                started = time.monotonic()
                await socket_.send(json.dumps({"type": "go", "seconds": seconds}))
                while True:
                    message = json.loads(await socket_.recv())
                    if message["type"] != "thought":
                        break
                latency = time.monotonic() - started
                if message["type"] != "moved":
                    errors.append(f"{message['type']}: {message.get('message')}")
                    return
                latencies.append(latency)
                if os.environ.get("WEB_LOAD_DEBUG"):
                    print(f"move {made}: {latency:.3f} searched {message['searched']:.3f}")
                searched.append(message["searched"])
                view = message["view"]
                made += 1


async def phase(base: str, game: str, games: int, moves: int,
                seconds: float) -> tuple[list[float], list[float], list[str], float]:
    latencies: list[float] = []
    searched: list[float] = []
    errors: list[str] = []
    started = time.monotonic()
    await asyncio.gather(*(play(base, game, moves, seconds, latencies, searched, errors)
                           for _ in range(games)))
    return latencies, searched, errors, time.monotonic() - started


def summary(name: str, latencies: list[float], searched: list[float], errors: list[str],
            wall: float, seconds: float) -> float:
    ordered = sorted(latencies)
    p50 = statistics.median(ordered)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    late = sum(1 for x in ordered if x > seconds + MARGIN)
    print(f"{name:<16} moves {len(ordered):>4}  p50 {p50:.3f} s  p95 {p95:.3f} s  "
          f"max {ordered[-1]:.3f} s  over {seconds:g}+{MARGIN} s: {late}  errors: {len(errors)}"
          f"  wall {wall:.1f} s")
    print(f"{'':<16} of which searching in the worker: p50 {statistics.median(searched):.3f} s"
          f"  max {max(searched):.3f} s")
    for error in errors[:5]:
        print(f"  error: {error}")
    return p95


def main() -> int:
    parser = ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=8)
    parser.add_argument("--moves", type=int, default=12, help="engine moves per game")
    parser.add_argument("--seconds", type=float, default=1.0, help="time per move")
    parser.add_argument("--game", default="pikachu")
    args = parser.parse_args()
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "aviary", "serve", "--port", str(port),
         "--workers", str(args.games)],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env={**os.environ})
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(600):
            try:
                urllib.request.urlopen(base + "/api/games", timeout=1).close()
                break
            except OSError:
                time.sleep(0.2)
        print(f"load average before: {os.getloadavg()[0]:.1f}; {os.cpu_count()} cores; "
              f"{args.game}, {args.seconds:g} s a move")
        # every engine process loaded (the server warms them at start), tables warm
        asyncio.run(phase(base, args.game, args.games, 3, args.seconds))
        alone = asyncio.run(phase(base, args.game, 1, args.moves, args.seconds))
        base_p95 = summary("1 game alone", *alone, args.seconds)
        loaded = asyncio.run(phase(base, args.game, args.games, args.moves, args.seconds))
        load_p95 = summary(f"{args.games} games at once", *loaded, args.seconds)
        print(f"p95 ratio, {args.games} games / 1 game: {load_p95 / base_p95:.2f}")
        print(f"load average after: {os.getloadavg()[0]:.1f}")
        bar = (not loaded[2] and max(loaded[0]) <= args.seconds + MARGIN)
        print(f"bar (every move within {args.seconds:g}+{MARGIN} s, no error): "
              f"{'met' if bar else 'NOT met'}")
        return 0 if bar else 1
    finally:
        server.terminate()
        server.wait(timeout=30)


if __name__ == "__main__":
    run_main(main)
