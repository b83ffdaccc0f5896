"""The README and docs/ name files of this repository; a reader must find each one.

A file that is gone (a script the arena replaced, its logs) may still be named where
the text says it is history: its section (from one heading to the next) says the
file is "in git history". Anything else that names a missing file is a broken
reference, the kind that left figures pointing at scripts that no longer exist.
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


def test_every_file_the_docs_name_exists_or_is_named_as_history():
    broken = []
    for page in PAGES:
        for section in sections(page.read_text()):
            heading = section.splitlines()[0] if section else ""
            if "git history" in section:
                continue
            for name in sorted(set(NAMED.findall(section))):
                if PLACEHOLDER not in name and not exists(name):
                    broken.append(f"{page.relative_to(ROOT)} ({heading}): {name}")
            for link in sorted(set(LINKED.findall(section))):
                if not exists(link, page.parent):
                    broken.append(f"{page.relative_to(ROOT)} ({heading}): link {link}")
    assert not broken, "files named but missing:\n" + "\n".join(broken)


def test_a_missing_file_outside_a_history_section_is_reported(tmp_path: Path):
    """The check itself: a made-up script is caught, and let through once its section
    says it is in git history."""
    page = "# Figures\n\nRun `python benchmarks/no_such_script.py`.\n"
    assert not exists("benchmarks/no_such_script.py")
    assert NAMED.findall(page) == ["benchmarks/no_such_script.py"]
    assert LINKED.findall("[log](../benchmarks/none.jsonl), [site](https://x.org/a), "
                          "[here](#top)") == ["../benchmarks/none.jsonl"]
    assert not exists("../benchmarks/none.jsonl", ROOT / "docs")
    assert exists("../benchmarks/strength.py", ROOT / "docs")
    history = page + "The script is in git history.\n"
    assert all("git history" in part for part in sections(history) if NAMED.findall(part))
