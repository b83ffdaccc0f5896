"""One time currency: a move's deadline is built at the edges only (issue 53).

Outside `aviary.search` (whose clock.py holds every margin and cap), a `Deadline` is
built in at most one module per edge: the course command, the arena, the web app and
the OpenSpiel players. Everyone else receives one whole, or depth and node limits.
Timers that are not a move's time (lock waits, reaping, watchdogs) are elapsed-time
checks, not deadlines.
"""

import re
from pathlib import Path

import aviary
from aviary.search.clock import Deadline

SOURCE = Path(aviary.__file__).parent
EDGES = 4  # course, arena, web, OpenSpiel

# Deadline(...), Deadline.<any of its factories>(...), the builders the issue named, and
# a time made by adding to the clock
FACTORIES = sorted(name for name, member in vars(Deadline).items()
                   if isinstance(member, classmethod))
BUILDS = re.compile(r"\bDeadline\(|\bDeadline\.(?:" + "|".join(FACTORIES) + r")\("
                    r"|\bmove_deadline\(|\bcourse_deadline\(|monotonic\(\) \+")


def modules_building_deadlines() -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for path in sorted(SOURCE.rglob("*.py")):
        name = path.relative_to(SOURCE).as_posix()
        if name.startswith("search/"):
            continue
        lines = [line.strip() for line in path.read_text().splitlines() if BUILDS.search(line)]
        if lines:
            found[name] = lines
    return found


def test_the_pattern_knows_every_deadline_factory():
    assert {"after", "for_course", "from_wire"} <= set(FACTORIES)
    assert BUILDS.search("x = Deadline.from_wire(message)")
    assert BUILDS.search("due = time.monotonic() + 5")
    assert not BUILDS.search("deadline.remaining()")


def test_deadlines_are_built_at_the_edges_only():
    found = modules_building_deadlines()
    assert len(found) <= EDGES, "\n".join(f"{name}: {lines}" for name, lines in found.items())
    edges = {name.split("/")[0] for name in found}
    assert edges <= {"course", "arena", "web", "openspiel"}, sorted(found)
    assert len(edges) == len(found), f"one module per edge: {sorted(found)}"


def test_games_take_the_deadline_their_caller_built():
    """The engines (games/) build none: the default when a caller gives no limit is
    `Limit.for_move`'s, in the clock."""
    for path in (SOURCE / "games").rglob("*.py"):
        text = path.read_text()
        assert not BUILDS.search(text), path
