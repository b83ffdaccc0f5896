"""Saving and loading a fitted model as plain JSON (never pickle).

A pickle runs code when loaded, so a model file passed around by students
could do anything; JSON is only data. The file holds the options, the
classes and the raw counts (integers for word counts), and loading
re-derives every probability, so a file cannot carry inconsistent numbers.
Loading checks every field and raises ValueError naming what is wrong.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from aviary.classify.naive_bayes import NaiveBayes
from aviary.classify.tokenize import Tokenizer

FORMAT = "aviary.classify.NaiveBayes"
VERSION = 1


def model_to_dict(model: NaiveBayes) -> dict[str, Any]:
    """The fitted model as JSON-ready data."""
    counts = model.feature_count_
    integral = bool(np.all(counts == np.round(counts)))
    return {
        "format": FORMAT,
        "version": VERSION,
        "event_model": model.event_model,
        "alpha": model.alpha,
        "fit_prior": model.fit_prior,
        "tokenizer": model.analyzer.to_dict(),
        "classes": [str(label) for label in model.classes_],
        "class_count": [int(n) for n in model.class_count_],
        "features": model.feature_names(),
        "feature_count": (counts.astype(np.int64) if integral else counts).tolist(),
    }


def model_from_dict(data: Any) -> NaiveBayes:
    """Rebuild a fitted model from `model_to_dict` output, checking every field."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError("not an aviary classify model (no 'format' marker)")
    if data.get("version") != VERSION:
        raise ValueError(f"model format version {data.get('version')!r} is not {VERSION}")
    classes = _strings(data, "classes")
    features = _strings(data, "features")
    if len(classes) < 2 or len(set(classes)) != len(classes):
        raise ValueError("'classes' must list at least two distinct labels")
    if len(set(features)) != len(features):
        raise ValueError("'features' has duplicates")
    class_count = _numbers(data.get("class_count"), "class_count", (len(classes),))
    feature_count = _numbers(
        data.get("feature_count"), "feature_count", (len(classes), len(features))
    )
    alpha = data.get("alpha")
    if isinstance(alpha, bool) or not isinstance(alpha, int | float):
        raise ValueError("'alpha' must be a number")
    if not isinstance(data.get("fit_prior"), bool):
        raise ValueError("'fit_prior' must be true or false")
    if not isinstance(data.get("tokenizer"), dict):
        raise ValueError("'tokenizer' must be an object")
    try:
        tokenizer = Tokenizer.from_dict(data["tokenizer"])
    except (TypeError, ValueError) as error:
        raise ValueError(f"bad tokenizer options: {error}") from None
    if np.any(class_count <= 0):
        raise ValueError("every class needs a positive 'class_count'")
    model = NaiveBayes(
        event_model=data.get("event_model"),  # type: ignore[arg-type]  # checked next
        alpha=float(alpha),
        fit_prior=data["fit_prior"],
        tokenizer=tokenizer,
    )
    model._check_parameters()
    model.classes_ = np.asarray(classes, dtype=object)
    model.vocabulary_ = {name: column for column, name in enumerate(features)}
    model.class_count_ = class_count
    model.feature_count_ = feature_count
    model._estimate()
    return model


def save_model(model: NaiveBayes, path: str | Path) -> None:
    """Write the model as JSON atomically (a crash never leaves half a file)."""
    path = Path(path)
    handle, temporary = tempfile.mkstemp(dir=path.parent or ".", prefix=f".{path.name}.")
    try:
        os.chmod(temporary, 0o666 & ~_umask())  # mkstemp's 0600 is not what users expect
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            json.dump(model_to_dict(model), stream, ensure_ascii=False, separators=(",", ":"))
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current


def load_model(path: str | Path) -> NaiveBayes:
    """Read a model saved by `save_model`; ValueError says what is wrong."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ValueError("not UTF-8 JSON") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise ValueError(f"not JSON ({error.msg} at line {error.lineno})") from None
    return model_from_dict(data)


def _strings(data: dict[str, Any], key: str) -> list[str]:
    values = data.get(key)
    if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
        raise ValueError(f"'{key}' must be a list of strings")
    return values


def _numbers(values: Any, key: str, shape: tuple[int, ...]) -> np.ndarray:
    if not isinstance(values, list):
        raise ValueError(f"'{key}' must be a list")
    try:
        array = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"'{key}' must hold only numbers") from None
    if array.shape != shape:
        raise ValueError(f"'{key}' has shape {array.shape}, expected {shape}")
    if not (np.all(np.isfinite(array)) and np.all(array >= 0)):
        raise ValueError(f"'{key}' must hold finite non-negative numbers")
    return array
