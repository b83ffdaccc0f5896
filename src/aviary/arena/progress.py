"""Live progress: a bar and the standings, redrawn as each game ends (plain lines off a tty)."""

from __future__ import annotations

from types import TracebackType

from rich.console import Console, Group
from rich.live import Live
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from aviary.arena.referee import GameRecord
from aviary.arena.report import standings, standings_table
from aviary.arena.store import Store


def describe(record: GameRecord) -> str:
    result = {1.0: "1-0", 0.0: "0-1"}.get(record.result, "1/2-1/2")
    text = f"game {record.slot + 1}: {record.first} - {record.second} {result} ({record.reason}"
    text += f": {record.detail})" if record.detail else ")"
    return text


class LiveView:
    """Context manager; call `update(record)` after each stored game."""

    def __init__(self, store: Store, total: int, done: int, console: Console | None = None):
        self.store, self.console = store, console or Console()
        self.live_mode = self.console.is_terminal
        self.progress = Progress(TextColumn("games"), BarColumn(), MofNCompleteColumn(),
                                 TimeElapsedColumn(), console=self.console)
        self.task = self.progress.add_task("games", total=total, completed=done)
        self.live = Live(self._render(), console=self.console, refresh_per_second=4,
                         transient=False) if self.live_mode else None

    def _render(self) -> Group:
        table = standings_table(standings(self.store), width=self.console.width)
        return Group(self.progress, table)

    def __enter__(self) -> LiveView:
        if self.live is not None:
            self.live.__enter__()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        if self.live is not None:
            self.live.__exit__(kind, error, trace)

    def update(self, record: GameRecord) -> None:
        self.progress.advance(self.task)
        if self.live is not None:
            self.live.console.print(describe(record), markup=False, highlight=False)
            self.live.update(self._render())
        else:
            done = int(self.progress.tasks[0].completed)
            total = int(self.progress.tasks[0].total or 0)
            print(f"[{done}/{total}] {describe(record)}", flush=True)
