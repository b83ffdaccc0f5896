"""Cross-validation's shortcut equals refitting; alpha is chosen by CV on training texts."""

from __future__ import annotations

import numpy as np
import pytest

from aviary.classify.evaluate import (
    accuracy,
    choose_settings,
    cross_validate,
    cross_validate_grid,
    fold_indices,
)
from aviary.classify.naive_bayes import NaiveBayes
from aviary.classify.synthetic import generate
from aviary.classify.tokenize import Tokenizer

WORDS_ONLY = Tokenizer(char_ngrams=(0, 0), word_bigrams=False, hashtags="merge", binary=False)


def refitted_fold_accuracies(model: NaiveBayes, texts, labels, k: int, seed: int) -> list[float]:
    """The slow, obvious way: a fresh model fitted on each fold's raw training texts."""
    texts_array = np.asarray(texts, dtype=object)
    labels_array = np.asarray(labels, dtype=object)
    scores = []
    for held_out in fold_indices(len(texts), k, seed):
        keep = np.setdiff1d(np.arange(len(texts)), held_out)
        fresh = NaiveBayes(event_model=model.event_model, alpha=model.alpha,
                           fit_prior=model.fit_prior, tokenizer=model.tokenizer)
        fresh.fit(list(texts_array[keep]), list(labels_array[keep]))
        scores.append(accuracy(fresh.predict(list(texts_array[held_out])),
                               list(labels_array[held_out])))
    return scores


def sparse_corpus(seed: int) -> tuple[list[str], list[str]]:
    """Small texts over a large vocabulary: many words occur in one fold only,
    so giving them smoothing mass would change predictions."""
    rng = np.random.default_rng(seed)
    vocabulary = [f"w{i}" for i in range(400)]
    labels = [f"c{int(rng.integers(3))}" for _ in range(90)]
    texts = [" ".join(rng.choice(vocabulary[:100] if label == "c0" else vocabulary,
                                 size=int(rng.integers(1, 6)))) for label in labels]
    return texts, labels


@pytest.mark.parametrize("event_model", ["multinomial", "bernoulli", "complement"])
@pytest.mark.parametrize("seed", range(4))
def test_cross_validation_shortcut_equals_refitting_from_raw_texts(event_model, seed):
    texts, labels = sparse_corpus(seed)
    model = NaiveBayes(event_model=event_model, alpha=1.0, tokenizer=WORDS_ONLY)
    result = cross_validate(model, texts, labels, k=5, seed=seed)
    assert list(result.fold_accuracies) == refitted_fold_accuracies(model, texts, labels, 5, seed)


@pytest.mark.parametrize("event_model", ["multinomial", "bernoulli", "complement"])
def test_cross_validation_shortcut_equals_refitting_on_generated_city_tweets(event_model):
    tweets = generate(600, seed=11)
    model = NaiveBayes(event_model=event_model)   # default features: words, pairs, n-grams
    result = cross_validate(model, tweets.texts, tweets.labels, k=5, seed=2)
    assert list(result.fold_accuracies) == refitted_fold_accuracies(
        model, tweets.texts, tweets.labels, 5, 2)


def test_choose_settings_takes_the_best_cross_validated_alpha_and_fits_with_it():
    tweets = generate(800, seed=5)
    alphas = (0.01, 0.1, 1.0, 10.0)
    choice = choose_settings(NaiveBayes(), tweets.texts, tweets.labels, ["multinomial"], alphas,
                             k=5, seed=0)
    grid = cross_validate_grid(NaiveBayes(), tweets.texts, tweets.labels,
                               [("multinomial", alpha) for alpha in alphas], k=5, seed=0)
    means = [result.mean for result in grid]
    assert choice.alpha == alphas[int(np.argmax(means))]
    assert [choice.results[("multinomial", alpha)].mean for alpha in alphas] == means
    assert len(set(means)) > 1          # the candidates really differ on these texts
    reference = NaiveBayes(alpha=choice.alpha).fit(tweets.texts, tweets.labels)
    assert (choice.model.event_model, choice.model.alpha) == ("multinomial", choice.alpha)
    assert choice.model.vocabulary_ == reference.vocabulary_
    assert np.array_equal(choice.model.feature_log_prob_, reference.feature_log_prob_)
    assert np.array_equal(choice.model.class_log_prior_, reference.class_log_prior_)


def test_another_event_model_replaces_the_first_only_beyond_one_standard_error():
    tweets = generate(1500, seed=6)
    alphas = (0.1, 0.3, 1.0)
    choice = choose_settings(NaiveBayes(), tweets.texts, tweets.labels,
                             ["multinomial", "complement"], alphas, k=5, seed=0)

    def best(event_model):
        return max((choice.results[(event_model, a)] for a in alphas), key=lambda r: r.mean)

    multinomial, complement = best("multinomial"), best("complement")
    switched = complement.mean > multinomial.mean + multinomial.standard_error
    assert choice.event_model == ("complement" if switched else "multinomial")
    assert switched      # twelve unbalanced cities: complement is clearly better here
    reversed_order = choose_settings(NaiveBayes(), tweets.texts, tweets.labels,
                                     ["complement", "multinomial"], alphas, k=5, seed=0)
    assert reversed_order.event_model == "complement"
