"""Texts to a sparse document-by-feature count matrix.

The inner loop is the whole cost of training on tweets, so it stays in C as
much as Python allows: a `defaultdict` whose missing keys number themselves
(`default_factory = vocabulary.__len__`) and `array.extend(map(...))` look up
every feature of a text without a Python-level loop per token; duplicates are
summed once by scipy at the end.
"""

from __future__ import annotations

from array import array
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from itertools import repeat

import numpy as np
import scipy.sparse as sp

Analyzer = Callable[[str], list[str]]


def learn_counts(
    texts: Iterable[str], analyzer: Analyzer
) -> tuple[sp.csr_matrix, dict[str, int]]:
    """Count matrix of `texts` and the vocabulary (feature -> column) it grew."""
    vocabulary: defaultdict[str, int] = defaultdict()
    vocabulary.default_factory = vocabulary.__len__
    lookup = vocabulary.__getitem__
    indices = array("q")
    indptr = [0]
    for text in texts:
        indices.extend(map(lookup, analyzer(text)))
        indptr.append(len(indices))
    matrix = _csr(np.frombuffer(indices, dtype=np.int64), indptr, len(vocabulary))
    return matrix, dict(vocabulary)


def count(texts: Iterable[str], analyzer: Analyzer, vocabulary: dict[str, int]) -> sp.csr_matrix:
    """Count matrix of `texts` over a fixed vocabulary; unknown features are ignored."""
    lookup = vocabulary.get
    indices = array("q")
    indptr = [0]
    for text in texts:
        features = analyzer(text)
        indices.extend(map(lookup, features, repeat(-1, len(features))))
        indptr.append(len(indices))
    columns = np.frombuffer(indices, dtype=np.int64)
    rows = np.repeat(np.arange(len(indptr) - 1), np.diff(indptr))
    known = columns >= 0
    return sp.csr_matrix(
        (np.ones(int(known.sum())), (rows[known], columns[known])),
        shape=(len(indptr) - 1, len(vocabulary)),
    )


def _csr(columns: np.ndarray, indptr: Sequence[int], n_features: int) -> sp.csr_matrix:
    matrix = sp.csr_matrix(
        (np.ones(len(columns)), columns, np.asarray(indptr, dtype=np.int64)),
        shape=(len(indptr) - 1, n_features),
    )
    matrix.sum_duplicates()
    return matrix
