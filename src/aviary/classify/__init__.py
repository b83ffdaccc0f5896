"""Naive Bayes text classification: the course's tweet-location tool, done well.

    from aviary.classify import NaiveBayes, Tokenizer
    model = NaiveBayes().fit(texts, labels)       # defaults chosen by cross-validation
    model.predict(["Brooklyn bridge at dusk #nyc"])

`tokenize` turns a text into features, `counts` builds sparse count matrices,
`naive_bayes` is the model, `evaluate` the accuracy and cross-validation,
`data` reads messy `LABEL text...` files, `model_file` saves JSON models and
`command` is `aviary classify`.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from aviary.classify.naive_bayes import NaiveBayes
    from aviary.classify.tokenize import Tokenizer

__all__ = ["NaiveBayes", "Tokenizer"]
_HOMES = {"NaiveBayes": "aviary.classify.naive_bayes", "Tokenizer": "aviary.classify.tokenize"}


def __getattr__(name: str) -> Any:
    # Lazy, so `aviary classify` can refuse bad input before scipy loads.
    if name in _HOMES:
        return getattr(importlib.import_module(_HOMES[name]), name)
    raise AttributeError(f"module 'aviary.classify' has no attribute {name!r}")
