"""Accuracy and K-fold cross-validation.

Cross-validation tokenizes the training texts once and then, for each fold,
fits on the other folds' rows with only the features those rows contain:
exactly what fitting from scratch on those texts would give (a feature seen
only in the held-out fold must not take smoothing mass), at a fraction of
the cost.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from aviary.classify.counts import learn_counts
from aviary.classify.defaults import EventModel
from aviary.classify.naive_bayes import NaiveBayes


@dataclass(frozen=True)
class CrossValidation:
    """Per-fold accuracies, their mean and its standard error (all fractions)."""

    fold_accuracies: tuple[float, ...]

    @property
    def mean(self) -> float:
        return float(np.mean(self.fold_accuracies))

    @property
    def standard_error(self) -> float:
        k = len(self.fold_accuracies)
        return float(np.std(self.fold_accuracies, ddof=1) / math.sqrt(k)) if k > 1 else 0.0


def accuracy(predicted: Sequence[str], truth: Sequence[str]) -> float:
    """Fraction of positions where the two label sequences agree."""
    if len(predicted) != len(truth) or not truth:
        raise ValueError("accuracy needs two non-empty sequences of the same length")
    return sum(p == t for p, t in zip(predicted, truth, strict=True)) / len(truth)


def fold_indices(n: int, k: int, seed: int = 0) -> list[np.ndarray]:
    """k disjoint folds covering range(n), after a seeded shuffle."""
    if not 2 <= k <= n:
        raise ValueError(f"cross-validation needs 2 <= K <= {n} (the number of texts), got {k}")
    order = np.random.default_rng(seed).permutation(n)
    return list(np.array_split(order, k))


def cross_validate(
    model: NaiveBayes, texts: Sequence[str], labels: Sequence[str], k: int = 5, seed: int = 0
) -> CrossValidation:
    """K-fold cross-validated accuracy of `model`'s settings on these texts."""
    return cross_validate_grid(model, texts, labels, [(model.event_model, model.alpha)], k,
                               seed)[0]


def cross_validate_grid(
    model: NaiveBayes,
    texts: Sequence[str],
    labels: Sequence[str],
    settings: Sequence[tuple[EventModel, float]],
    k: int = 5,
    seed: int = 0,
) -> list[CrossValidation]:
    """Cross-validate several (event model, alpha) settings on one tokenization.

    The texts are tokenized once for all settings (the tokenizer is the slow
    part), on the same folds, so the settings are compared like for like.
    """
    if len(texts) != len(labels):
        raise ValueError(f"{len(texts)} texts but {len(labels)} labels")
    counts, vocabulary = learn_counts(texts, model.analyzer)
    names = np.empty(len(vocabulary), dtype=object)
    for name, column in vocabulary.items():
        names[column] = name
    classes, codes = np.unique(np.asarray(labels, dtype=object), return_inverse=True)
    class_names = [str(c) for c in classes]
    truth = np.asarray(labels, dtype=object)
    scores: list[list[float]] = [[] for _ in settings]
    for held_out in fold_indices(len(texts), k, seed):
        train = np.setdiff1d(np.arange(len(texts)), held_out, assume_unique=True)
        train_counts = counts[train]
        seen = np.flatnonzero(np.asarray(train_counts.sum(axis=0)).ravel() > 0)
        fold_vocabulary = {str(name): column for column, name in enumerate(names[seen])}
        train_counts = train_counts[:, seen]
        test_counts = counts[held_out][:, seen]
        for index, (event_model, alpha) in enumerate(settings):
            fold_model = NaiveBayes(event_model=event_model, alpha=alpha,
                                    fit_prior=model.fit_prior, tokenizer=model.tokenizer)
            fold_model.fit_counts(train_counts, codes[train], class_names, fold_vocabulary)
            predicted = np.asarray(fold_model.predict_counts(test_counts), dtype=object)
            scores[index].append(float(np.mean(predicted == truth[held_out])))
    return [CrossValidation(tuple(fold_scores)) for fold_scores in scores]
