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
    return _Tokenized(model, texts, labels).cross_validate(settings, k, seed)


@dataclass(frozen=True)
class Choice:
    """The model fitted with the chosen settings, and every candidate's CV result."""

    model: NaiveBayes
    event_model: EventModel
    alpha: float
    results: dict[tuple[EventModel, float], CrossValidation]


def choose_settings(
    model: NaiveBayes,
    texts: Sequence[str],
    labels: Sequence[str],
    event_models: Sequence[EventModel],
    alphas: Sequence[float],
    k: int = 5,
    seed: int = 0,
) -> Choice:
    """Fit `model`'s tokenizer with the event model and smoothing that cross-validate best.

    The right settings depend on the file (two coasts or twelve unbalanced
    cities, how much text per class), so they are chosen on the training
    texts alone. Within an event model the alpha with the highest mean
    K-fold accuracy wins (the earlier one on a tie). The first event model
    is the preferred one: another replaces it only when its best mean is
    higher by more than one standard error of the first's, so a difference
    of a tweet or two never switches the model. The texts are tokenized
    once, for the folds and the final fit alike.
    """
    tokenized = _Tokenized(model, texts, labels)
    settings = [(event_model, alpha) for event_model in event_models for alpha in alphas]
    results = dict(zip(settings, tokenized.cross_validate(settings, k, seed), strict=True))

    def best_alpha(event_model: EventModel) -> tuple[EventModel, float]:
        order = range(len(alphas))
        index = max(order, key=lambda i: (results[(event_model, alphas[i])].mean, -i))
        return event_model, alphas[index]

    chosen = best_alpha(event_models[0])
    margin = results[chosen].mean + results[chosen].standard_error
    for other in event_models[1:]:
        candidate = best_alpha(other)
        if results[candidate].mean > margin and results[candidate].mean > results[chosen].mean:
            chosen = candidate
    fitted = NaiveBayes(event_model=chosen[0], alpha=chosen[1], fit_prior=model.fit_prior,
                        tokenizer=model.tokenizer)
    fitted.fit_counts(tokenized.counts, tokenized.codes, tokenized.class_names,
                      tokenized.vocabulary)
    return Choice(fitted, chosen[0], chosen[1], results)


class _Tokenized:
    """Training texts tokenized once: counts, vocabulary, class codes."""

    def __init__(self, model: NaiveBayes, texts: Sequence[str], labels: Sequence[str]) -> None:
        if len(texts) != len(labels):
            raise ValueError(f"{len(texts)} texts but {len(labels)} labels")
        self.model = model
        self.counts, self.vocabulary = learn_counts(texts, model.analyzer)
        classes, self.codes = np.unique(np.asarray(labels, dtype=object), return_inverse=True)
        self.class_names = [str(c) for c in classes]
        self.truth = np.asarray(labels, dtype=object)

    def cross_validate(
        self, settings: Sequence[tuple[EventModel, float]], k: int, seed: int
    ) -> list[CrossValidation]:
        scores: list[list[float]] = [[] for _ in settings]
        for held_out in fold_indices(len(self.truth), k, seed):
            train = np.setdiff1d(np.arange(len(self.truth)), held_out, assume_unique=True)
            train_counts = self.counts[train]
            seen = np.flatnonzero(np.asarray(train_counts.sum(axis=0)).ravel() > 0)
            train_counts = train_counts[:, seen]
            test_counts = self.counts[held_out][:, seen]
            fitted: dict[bool, NaiveBayes] = {}  # per fold: one count table per kind of count
            for index, (event_model, alpha) in enumerate(settings):
                counts_texts = event_model == "bernoulli"
                fold_model = fitted.get(counts_texts)
                if fold_model is None:
                    fold_model = NaiveBayes(event_model=event_model, alpha=alpha,
                                            fit_prior=self.model.fit_prior,
                                            tokenizer=self.model.tokenizer)
                    # fold models only predict count rows: no feature names needed
                    fold_model.fit_counts(train_counts, self.codes[train], self.class_names, {})
                    fitted[counts_texts] = fold_model
                else:
                    fold_model.reestimate(event_model, alpha)
                predicted = np.asarray(fold_model.predict_counts(test_counts), dtype=object)
                scores[index].append(float(np.mean(predicted == self.truth[held_out])))
        return [CrossValidation(tuple(fold_scores)) for fold_scores in scores]
