"""The README, docs/ and the code name files of this repository; a reader must find each one.

A file that is gone (a script the arena replaced, its logs) may still be named where
the text says it is history: the very line that names it says the file is "in git
history" (a section's note at its top is not enough: 24 names of scripts and logs
that no longer exist stood in tables under such notes, as commands to run). Anything
else that names a missing file is a broken reference, the kind that left figures
pointing at scripts that no longer exist.
"""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
# a path inside the repository, as the docs write one: `benchmarks/strength.py`,
# `src/aviary/games/pikachu/rules.py`, `benchmarks/logs/x_part*.jsonl`
NAMED = re.compile(r"(?<![\w/.-])((?:benchmarks|src|tests|docs)/[\w./*-]*"
                   r"\.(?:py|sh|md|jsonl|json|txt))")
# a Markdown link to a file, relative to the page: `[record](../benchmarks/results/x.jsonl)`
LINKED = re.compile(r"\]\((?!https?:|mailto:|#)([^)#\s]+)")
PLACEHOLDER = "NAME"  # docs/architecture.md's template for a new game: `docs/games/NAME.md`


def sections(text: str) -> list[str]:
    """The page cut at its headings: each part from one heading to the next."""
    return re.split(r"(?m)^(?=#{1,6} )", text)


def exists(name: str, base: Path = ROOT) -> bool:
    return any(base.glob(name)) if "*" in name else (base / name).exists()


def broken_references(text: str, folder: Path) -> list[str]:
    """The files a page in `folder` names or links that are missing, with the heading of
    their section; a line that says its files are in git history is let through."""
    broken = []
    for section in sections(text):
        heading = section.splitlines()[0] if section else ""
        for line in section.splitlines():
            if "git history" in line:
                continue
            broken += [f"({heading}) {name}" for name in sorted(set(NAMED.findall(line)))
                       if PLACEHOLDER not in name and not exists(name)]
            broken += [f"({heading}) link {link}" for link in sorted(set(LINKED.findall(line)))
                       if not exists(link, folder)]
    return broken


def test_every_file_the_docs_name_exists_or_is_named_as_history():
    broken = [f"{page.relative_to(ROOT)} {reference}" for page in PAGES
              for reference in broken_references(page.read_text(), page.parent)]
    assert not broken, "files named but missing:\n" + "\n".join(broken)


def test_a_missing_file_outside_a_history_section_is_reported():
    """The check itself: a made-up script and a made-up link are caught, files that exist
    are not, and a section that says its files are in git history is let through."""
    docs = ROOT / "docs"
    page = ("# Figures\n\nRun `python benchmarks/no_such_script.py`, then "
            "`python benchmarks/strength.py list`; [log](../benchmarks/none.jsonl), "
            "[arena](arena.md), [site](https://example.org/a), [top](#figures).\n")
    assert broken_references(page, docs) == ["(# Figures) benchmarks/no_such_script.py",
                                             "(# Figures) link ../benchmarks/none.jsonl"]
    # the line that names a gone file says so; a note elsewhere in the section does not
    assert broken_references(page.replace(".\n", " (both in git history).\n"), docs) == []
    assert len(broken_references(page + "Both are in git history.\n", docs)) == 2
    assert broken_references("# Template\n\n`docs/games/NAME.md`\n", docs) == []


def test_every_file_the_code_names_exists():
    """Docstrings and comments name benchmarks, docs and tests too (where a figure or a
    choice was measured); such a name must still lead somewhere."""
    named = {(path.relative_to(ROOT).as_posix(), name)
             for path in sorted((ROOT / "src").rglob("*.py"))
             for name in NAMED.findall(path.read_text())
             if PLACEHOLDER not in name}
    assert len(named) > 10  # the check reads what it should
    missing = sorted(f"{where}: {name}" for where, name in named if not exists(name))
    assert not missing, "files named in the code but missing:\n" + "\n".join(missing)
