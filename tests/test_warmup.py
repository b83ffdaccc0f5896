"""`aviary warmup` compiles every listed module's kernels through one `warmup()` hook."""

import importlib

from aviary import warmup


def test_every_warmup_module_exposes_a_warmup_function():
    for name in warmup.WARMUP_MODULES:
        assert callable(importlib.import_module(name).warmup), name
    assert warmup.DEEP_WARMUP_MODULES, "the deep tables are listed"
    for name in warmup.DEEP_WARMUP_MODULES:
        assert callable(importlib.import_module(name).deep_warmup), name


def test_pikachu_warmup_runs_and_reports_each_module(capsys, monkeypatch):
    monkeypatch.setattr(warmup, "WARMUP_MODULES", ["aviary.games.pikachu.engine"])
    assert warmup.main([]) == 0
    assert "aviary.games.pikachu.engine: ready in" in capsys.readouterr().out
