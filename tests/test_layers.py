"""The layers hold: nothing below `games/` reaches up, and no game is named outside its folder.

Bottom up: `search/`, then `games/` (protocol, registry, each game), then the course
runner, `play`, `arena/` and `web/`. Read from the source's import statements, so a
lazy import inside a function counts too.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from aviary.games import registry

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "aviary"
UPPER = ("aviary.arena", "aviary.web", "aviary.cli", "aviary.play", "aviary.course")


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


@pytest.mark.parametrize("layer", ["search", "games"])
def test_nothing_below_the_games_layer_imports_arena_web_cli_or_the_runners(layer):
    offenders = []
    for path in sorted((PACKAGE / layer).rglob("*.py")):
        for module in imported_modules(path):
            if module.startswith(UPPER):
                offenders.append(f"{path.relative_to(PACKAGE)} imports {module}")
    assert not offenders, "\n".join(offenders)


def test_the_arena_does_not_import_the_web_app_or_the_cli():
    """The web app serves the arena's leaderboards, not the other way round."""
    offenders = [f"{path.relative_to(PACKAGE)} imports {module}"
                 for path in sorted((PACKAGE / "arena").rglob("*.py"))
                 for module in imported_modules(path)
                 if module.startswith(("aviary.web", "aviary.cli"))]
    assert not offenders, "\n".join(offenders)


def test_search_does_not_import_any_game():
    offenders = [f"{path.relative_to(PACKAGE)} imports {module}"
                 for path in sorted((PACKAGE / "search").rglob("*.py"))
                 for module in imported_modules(path) if module.startswith("aviary.games")]
    assert not offenders, "\n".join(offenders)


@pytest.mark.parametrize("name", sorted([*registry.GAMES, *registry.TOOLS]))
def test_no_game_is_named_outside_its_own_folder_and_the_registry(name):
    pattern = re.compile(rf"\b{re.escape(name)}\b", re.IGNORECASE)
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE)
        if relative.parts[0] == name or relative.parts[:2] == ("games", name):
            continue
        if relative == Path("games/registry.py"):
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if pattern.search(line):
                offenders.append(f"{relative}:{number}: {line.strip()}")
    assert not offenders, "\n".join(offenders)


def module_name(path: Path) -> str:
    parts = ("aviary", *path.relative_to(PACKAGE).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def test_no_import_circle_among_aviary_modules():
    paths = {module_name(path): path for path in PACKAGE.rglob("*.py")}
    graph = {
        name: {target for module in imported_modules(path) for target in (module,)
               if target in paths and target != name}
        for name, path in paths.items()
    }
    circles = []
    state: dict[str, int] = {}  # 1 on the path, 2 done

    def visit(name: str, path: list[str]) -> None:
        state[name] = 1
        for target in sorted(graph[name]):
            if state.get(target) == 1:
                circles.append(" -> ".join(path[path.index(target):] + [target]))
            elif target not in state:
                visit(target, [*path, target])
        state[name] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name, [name])
    # a package importing its own submodules lazily (`from aviary.x import y` in x/__init__)
    # is not a circle between two files
    circles = [c for c in circles if not any(c.startswith(f"{p} -> {p}.") for p in paths)]
    assert not circles, "\n".join(circles)
