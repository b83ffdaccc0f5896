"""The `aviary` command: one subcommand per tool, each in its own module.

A subcommand's module is imported only when it runs, so a game's course
command does not pay for scipy or the classifier: course command lines must
answer within a second of starting. Each module exposes
`main(argv: list[str]) -> int` and raises `UsageError` for bad input. The games'
commands come from the registry (`aviary.games.registry`): a game without a
command of its own gets the shared course runner (`aviary.course.runner`).
"""

from __future__ import annotations

import importlib
import sys

from aviary.errors import NoMoveError, UsageError
from aviary.games import registry

# name -> (module that implements it, one-line summary): the games, then the tools; a
# game's line in `usage` is its spec's `command_line()`, made from its declared options
COMMANDS: dict[str, tuple[str, str]] = {
    **{spec.name: (spec.command_module, spec.command_summary) for spec in registry.commands()},
    "warmup": ("aviary.warmup", "compile every numba kernel ahead of time"),
    "play": ("aviary.play", "play a game in the terminal against its engine, or watch"),
    "warm": ("aviary.course.warm_server",
             "a warm engine server that course commands reuse: start, stop, status"),
    "classify": ("aviary.classify.command", "Naive Bayes text classification (course TRAIN TEST)"),
    "horizon": ("aviary.horizon.command", "Viterbi ridge lines in mountain photos"),
    "arena": ("aviary.arena.command", "tournaments between programs, ratings, SQLite results"),
    "grade": ("aviary.arena.grade_command",
              "place programs on a game's calibrated ladder: Elo, grades.csv, a leaderboard"),
    "ladder": ("aviary.arena.ladder_command",
               "a game's ladder of reference players: calibrate, show"),
    "openspiel": ("aviary.openspiel.command",
                  "run an OpenSpiel script or example with aviary's games registered"),
    "serve": ("aviary.web.command", "play every game in the browser (FastAPI on 127.0.0.1:8000)"),
}


def usage() -> str:
    width = max(len(name) for name in COMMANDS)
    lines = ["usage: aviary COMMAND [ARGS...]   (aviary COMMAND --help for details)", ""]
    for name, (_, summary) in COMMANDS.items():
        if name in registry.GAMES:  # a game's line comes from its declared options
            summary = registry.GAMES[name].command_line()
        lines.append(f"  {name:<{width}}  {summary}")
    return "\n".join(lines)


def one_line(name: str, message: str) -> str:
    """`aviary NAME: message` on one line, whatever prefix the subcommand gave it.

    A message that already names the command (`aviary NAME SUB: ...`, as argparse's
    subcommand parsers and some commands write) keeps its prefix, never doubled."""
    message = " ".join(message.split())
    if message.startswith((f"aviary {name}: ", f"aviary {name} ")):
        return message
    return f"aviary {name}: " + message.removeprefix(f"{name}: ")


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if not args or args[0] in ("-h", "--help", "help"):
        print(usage())
        return 0
    if args[0] == "--version":
        from aviary import __version__

        print(f"aviary {__version__}")
        return 0
    name, rest = args[0], args[1:]
    if name not in COMMANDS:
        print(f"aviary: unknown command {name!r}; one of: {', '.join(COMMANDS)}", file=sys.stderr)
        return 2
    try:
        target = COMMANDS[name][0]
        spec = registry.GAMES.get(name)
        if spec is not None and spec.course_subcommand and rest[:1] == [spec.course_subcommand]:
            target, rest = "aviary.course.runner", rest[1:]  # `aviary GAME WORD [course arguments]`
        module = importlib.import_module(target)
        runner = target == "aviary.course.runner"
        status: int = module.run(name, rest) if runner else module.main(rest)
        return status
    except (UsageError, NoMoveError) as error:
        print(one_line(name, str(error)), file=sys.stderr, flush=True)
        return error.exit_status
    except KeyboardInterrupt:
        print(f"aviary {name}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
