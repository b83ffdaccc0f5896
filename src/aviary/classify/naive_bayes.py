"""Naive Bayes for texts, in scikit-learn's shape, written here.

One class, three event models that differ only in how a class's feature
probabilities are estimated and how a document's joint log-likelihood is
summed (the `_estimate` / `_joint_log_likelihood` pair, as scikit-learn's
naive_bayes.py splits it):

- multinomial: a text is a bag of feature draws;
  P(f | c) = (count(f, c) + alpha) / (total(c) + alpha * V), and a text
  scores sum over its features of count * log P(f | c).
- Bernoulli: a text is the set of features present;
  P(f | c) = (docs(f, c) + alpha) / (docs(c) + 2 * alpha), and a text scores
  every vocabulary feature, present (log P) or absent (log(1 - P)).
- complement (Rennie et al. 2003, scikit-learn's ComplementNB with
  norm=False): each class is scored by how *unlike the other classes* the
  text is, w(f, c) = -log P(f | not c) with
  P(f | not c) = (count(f, not c) + alpha) / (total(not c) + alpha * V);
  no class prior. With many unbalanced classes a small class's own counts
  are few and noisy, while its complement's are plentiful: on generated
  twelve-city files this scores about 3 points above the best multinomial.

All maths is in log space; posteriors are normalised with logsumexp, so
long texts never underflow. Counts are scipy.sparse; only the
(classes x features) tables are dense.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray
from scipy.special import logsumexp

from aviary.classify.counts import count, learn_counts
from aviary.classify.defaults import DEFAULT_ALPHA, DEFAULT_EVENT_MODEL, EventModel
from aviary.classify.tokenize import Tokenizer, is_ngram

FloatArray = NDArray[np.float64]


@dataclass(frozen=True)
class Evidence:
    """How much one word (with its n-grams) or word pair moved a prediction.

    `weight` is in nats: log P(token | predicted) - log P(token | runner-up),
    summed over the token's features; positive supports the prediction.
    """

    token: str
    weight: float


class NaiveBayes:
    """A Naive Bayes text classifier: `NaiveBayes().fit(texts, labels).predict(texts)`.

    Parameters are keyword-only and stored as given; fitted attributes end
    in `_` (scikit-learn's convention):

    classes_             labels, sorted
    vocabulary_          feature -> column
    class_count_         training texts per class
    feature_count_       (classes x features) counts (texts containing it, for Bernoulli)
    class_log_prior_     log P(c): class frequencies, or uniform with fit_prior=False
    feature_log_prob_    log P(f | c) (complement: the weight -log P(f | not c))
    """

    def __init__(
        self,
        *,
        event_model: EventModel = DEFAULT_EVENT_MODEL,
        alpha: float = DEFAULT_ALPHA,
        fit_prior: bool = True,
        tokenizer: Tokenizer | None = None,
    ) -> None:
        self.event_model = event_model
        self.alpha = alpha
        self.fit_prior = fit_prior
        self.tokenizer = tokenizer

    # -- fitting -------------------------------------------------------------

    def fit(self, texts: Sequence[str], labels: Sequence[str]) -> NaiveBayes:
        """Learn from parallel sequences of texts and labels; returns self."""
        if len(texts) != len(labels):
            raise ValueError(f"{len(texts)} texts but {len(labels)} labels")
        matrix, vocabulary = learn_counts(texts, self.analyzer)
        classes, codes = np.unique(np.asarray(labels, dtype=object), return_inverse=True)
        return self.fit_counts(matrix, codes, [str(c) for c in classes], vocabulary)

    def fit_counts(
        self,
        counts: sp.csr_matrix,
        codes: NDArray[np.intp],
        classes: Sequence[str],
        vocabulary: dict[str, int],
    ) -> NaiveBayes:
        """Learn from a ready (texts x features) count matrix; `codes[i]` indexes `classes`.

        A class with no row (possible inside a cross-validation fold) gets
        prior zero and is never predicted.
        """
        self._check_parameters()
        if len(classes) < 2:
            raise ValueError(f"need at least two classes to tell apart, got {len(classes)}")
        counts = sp.csr_matrix(counts)
        if self.event_model == "bernoulli":
            counts = _binarized(counts)
        one_hot = sp.csr_matrix(
            (np.ones(len(codes)), (np.asarray(codes), np.arange(len(codes)))),
            shape=(len(classes), len(codes)),
        )
        self.classes_ = np.asarray(classes, dtype=object)
        self.vocabulary_ = vocabulary
        self.class_count_ = np.bincount(codes, minlength=len(classes)).astype(np.float64)
        self.feature_count_ = np.asarray((one_hot @ counts).todense(), dtype=np.float64)
        self._estimate()
        return self

    def reestimate(self, event_model: EventModel, alpha: float) -> NaiveBayes:
        """Switch a fitted model to other smoothing (or between multinomial and complement,
        which read the same counts) without recounting; returns self.

        Cross-validating several settings fits each fold's counts once this way.
        """
        if (event_model == "bernoulli") != (self.event_model == "bernoulli"):
            raise ValueError("Bernoulli counts texts, not features: refit to switch to or "
                             "from it")
        self.event_model, self.alpha = event_model, alpha
        self._check_parameters()
        self._estimate()
        return self

    def _check_parameters(self) -> None:
        if self.event_model not in ("multinomial", "bernoulli", "complement"):
            raise ValueError(f"event_model must be 'multinomial', 'bernoulli' or 'complement', "
                             f"not {self.event_model!r}")
        if not (self.alpha > 0 and np.isfinite(self.alpha)):
            raise ValueError(f"alpha must be a positive number, not {self.alpha}")

    def _estimate(self) -> None:
        """Log priors and feature log-probabilities from the fitted counts."""
        n_classes = len(self.classes_)
        if self.fit_prior:
            with np.errstate(divide="ignore"):  # a class absent from a CV fold: never predicted
                self.class_log_prior_ = (np.log(self.class_count_)
                                         - np.log(self.class_count_.sum()))
        else:
            self.class_log_prior_ = np.full(n_classes, -np.log(n_classes))
        if self.event_model == "complement":
            others = self.feature_count_.sum(axis=0) - self.feature_count_ + self.alpha
            self.feature_log_prob_: FloatArray = -(np.log(others)
                                       - np.log(others.sum(axis=1, keepdims=True)))
            return
        smoothed = self.feature_count_ + self.alpha
        if self.event_model == "multinomial":
            totals = smoothed.sum(axis=1, keepdims=True)
        else:
            totals = (self.class_count_ + 2 * self.alpha)[:, np.newaxis]
        self.feature_log_prob_ = np.log(smoothed) - np.log(totals)
        if self.event_model == "bernoulli":
            self._absent_log_prob = np.log1p(-np.exp(self.feature_log_prob_))

    # -- prediction ----------------------------------------------------------

    @property
    def analyzer(self) -> Tokenizer:
        """The tokenizer in use (the default one when none was given)."""
        return self.tokenizer if self.tokenizer is not None else Tokenizer()

    def transform(self, texts: Sequence[str]) -> sp.csr_matrix:
        """Count matrix of `texts` over the fitted vocabulary (unknown features dropped)."""
        return count(texts, self.analyzer, self.vocabulary_)

    def joint_log_likelihood(self, counts: sp.csr_matrix) -> FloatArray:
        """log P(c) + log P(text | c) for each row of a count matrix: (texts x classes).

        For the complement model: the sum of the weights, without a prior.
        """
        if self.event_model == "complement":
            scores = np.asarray(counts @ self.feature_log_prob_.T)
            scores[:, self.class_count_ == 0] = -np.inf  # absent from a CV fold: never predicted
            return scores
        if self.event_model == "multinomial":
            scores = counts @ self.feature_log_prob_.T
        else:
            present = _binarized(sp.csr_matrix(counts))
            scores = present @ (self.feature_log_prob_ - self._absent_log_prob).T
            scores = scores + self._absent_log_prob.sum(axis=1)
        return np.asarray(scores) + self.class_log_prior_

    def predict_log_proba(self, texts: Sequence[str]) -> FloatArray:
        """log P(c | text), rows (texts) by columns (`classes_`)."""
        joint = self.joint_log_likelihood(self.transform(texts))
        return np.asarray(joint - logsumexp(joint, axis=1, keepdims=True))

    def predict_proba(self, texts: Sequence[str]) -> FloatArray:
        """P(c | text); each row sums to 1."""
        return np.exp(self.predict_log_proba(texts))

    def predict(self, texts: Sequence[str]) -> list[str]:
        """The most probable label of each text."""
        return self.predict_counts(self.transform(texts))

    def predict_counts(self, counts: sp.csr_matrix) -> list[str]:
        """The most probable label of each row of a count matrix."""
        best = np.argmax(self.joint_log_likelihood(counts), axis=1)
        return [str(label) for label in self.classes_[best]]

    # -- explanation ---------------------------------------------------------

    def feature_names(self) -> list[str]:
        """Features in column order."""
        names = [""] * len(self.vocabulary_)
        for name, column in self.vocabulary_.items():
            names[column] = name
        return names

    def top_features(
        self, label: str, k: int = 20, *, words_only: bool = False
    ) -> list[tuple[str, float]]:
        """The k features that most favour `label`, with their log-odds in nats.

        A feature's log-odds is log P(f | label) minus the largest log P(f | c)
        of any other class: how strongly seeing it argues for `label` against
        its strongest rival. `words_only` leaves out character n-grams.
        """
        row = self._class_index(label)
        others = np.delete(self.feature_log_prob_, row, axis=0)
        odds = self.feature_log_prob_[row] - others.max(axis=0)
        names = self.feature_names()
        order = np.argsort(-odds, kind="stable")
        chosen: list[tuple[str, float]] = []
        for column in order:
            if words_only and is_ngram(names[column]):
                continue
            chosen.append((names[column], float(odds[column])))
            if len(chosen) == k:
                break
        return chosen

    def explain(self, text: str) -> tuple[str, str, list[Evidence]]:
        """(predicted, runner-up, evidence) for one text, strongest evidence first.

        Each word's weight sums its own feature and its character n-grams
        (times its repeats, for multinomial counts); word pairs and marked
        forms (`#nyc`) count separately; features unseen in training carry
        no weight. For the Bernoulli model only present features are listed.
        """
        proba = self.predict_log_proba([text])[0]
        first, second = np.argsort(-proba, kind="stable")[:2]
        difference = self.feature_log_prob_[first] - self.feature_log_prob_[second]
        if self.event_model == "bernoulli":
            difference = difference - (self._absent_log_prob[first]
                                       - self._absent_log_prob[second])
        tokenizer = self.analyzer
        words, marked = tokenizer.split(text)
        groups = {word: tokenizer.features_of_word(word) for word in words}
        if tokenizer.words:
            groups.update({form: [form] for form in marked})
        if tokenizer.word_bigrams:
            groups.update({f"{a} {b}": [f"{a} {b}"] for a, b in zip(words, words[1:],
                                                                     strict=False)})
        repeats = self.event_model != "bernoulli" and not tokenizer.binary
        evidence = []
        for token, features in groups.items():
            columns = [self.vocabulary_[f] for f in features if f in self.vocabulary_]
            if columns:
                times = words.count(token) if repeats and token in words else 1
                evidence.append(Evidence(token, times * float(difference[columns].sum())))
        evidence.sort(key=lambda item: -abs(item.weight))
        return str(self.classes_[first]), str(self.classes_[second]), evidence

    def _class_index(self, label: str) -> int:
        matches = np.flatnonzero(self.classes_ == label)
        if len(matches) == 0:
            raise ValueError(f"unknown label {label!r}; known: {list(self.classes_)}")
        return int(matches[0])


def _binarized(counts: sp.csr_matrix) -> sp.csr_matrix:
    present = counts.copy()
    present.data = np.ones_like(present.data)
    return present
