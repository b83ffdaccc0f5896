"""The model: hand-worked posteriors, agreement with scikit-learn, invariants."""

from __future__ import annotations

import math

import numpy as np
import pytest

from aviary.classify.naive_bayes import NaiveBayes
from aviary.classify.tokenize import Tokenizer

WORDS_ONLY = Tokenizer(char_ngrams=(0, 0), word_bigrams=False, hashtags="merge", binary=False)

# Three documents, vocabulary {snow, bagel, surf}:
#   E: "snow snow bagel"   E: "bagel"   W: "surf snow"
THREE_TEXTS = ["snow snow bagel", "bagel", "surf snow"]
THREE_LABELS = ["E", "E", "W"]


def test_multinomial_posterior_matches_the_hand_computation():
    # alpha = 1.  E counts snow 2, bagel 2, surf 0 (total 4, V = 3): P = 3/7, 3/7, 1/7.
    # W counts snow 1, bagel 0, surf 1 (total 2): P = 2/5, 1/5, 2/5.  Priors 2/3, 1/3.
    # "snow surf": E -> 2/3 * 3/7 * 1/7 = 2/49;  W -> 1/3 * 2/5 * 2/5 = 4/75;
    # P(W | text) = (4/75) / (4/75 + 2/49) = 98/173.
    model = NaiveBayes(event_model="multinomial", alpha=1.0, tokenizer=WORDS_ONLY)
    model.fit(THREE_TEXTS, THREE_LABELS)
    assert list(model.classes_) == ["E", "W"]
    proba = model.predict_proba(["snow surf"])[0]
    assert proba[1] == pytest.approx(98 / 173, abs=1e-12)
    assert model.predict(["snow surf"]) == ["W"]
    assert np.exp(model.feature_log_prob_[0, model.vocabulary_["surf"]]) == pytest.approx(1 / 7)


def test_bernoulli_posterior_matches_the_hand_computation():
    # alpha = 1.  E (2 docs): snow in 1, bagel in 2, surf in 0 -> P = 2/4, 3/4, 1/4.
    # W (1 doc): snow 1, bagel 0, surf 1 -> P = 2/3, 1/3, 2/3.
    # "snow surf" (bagel absent): E -> 2/3 * 1/2 * (1 - 3/4) * 1/4 = 1/48;
    # W -> 1/3 * 2/3 * (1 - 1/3) * 2/3 = 8/81;  P(W | text) = 384/465 = 128/155.
    model = NaiveBayes(event_model="bernoulli", alpha=1.0, tokenizer=WORDS_ONLY)
    model.fit(THREE_TEXTS, THREE_LABELS)
    assert model.predict_proba(["snow surf"])[0, 1] == pytest.approx(128 / 155, abs=1e-12)


def test_words_never_seen_in_training_are_ignored():
    model = NaiveBayes(event_model="multinomial", alpha=1.0, tokenizer=WORDS_ONLY)
    model.fit(THREE_TEXTS, THREE_LABELS)
    with_unknown = model.predict_log_proba(["snow surf kayak kayak"])
    assert np.allclose(with_unknown, model.predict_log_proba(["snow surf"]))


def test_text_with_no_known_word_gets_the_class_prior():
    model = NaiveBayes(event_model="multinomial", alpha=1.0, tokenizer=WORDS_ONLY)
    model.fit(THREE_TEXTS, THREE_LABELS)
    assert np.allclose(model.predict_proba(["kayak"])[0], [2 / 3, 1 / 3])


def test_uniform_prior_ignores_class_frequencies():
    model = NaiveBayes(alpha=1.0, fit_prior=False, tokenizer=WORDS_ONLY)
    model.fit(THREE_TEXTS, THREE_LABELS)
    assert np.allclose(model.class_log_prior_, [math.log(0.5)] * 2)


def random_corpus(seed: int, n_classes: int) -> tuple[list[str], list[str], list[str]]:
    rng = np.random.default_rng(seed)
    vocabulary = [f"w{i}" for i in range(rng.integers(5, 40))]
    labels = [f"c{i}" for i in range(n_classes)]

    def text() -> str:
        return " ".join(rng.choice(vocabulary, size=rng.integers(0, 12)))

    n = int(rng.integers(n_classes, 60))
    train_labels = labels + [str(rng.choice(labels)) for _ in range(n - n_classes)]
    return [text() for _ in range(n)], train_labels, [text() for _ in range(20)]


@pytest.mark.parametrize("seed", range(12))
def test_multinomial_agrees_with_scikit_learn_on_random_corpora(seed):
    sklearn_nb = pytest.importorskip("sklearn.naive_bayes")
    from sklearn.feature_extraction.text import CountVectorizer

    texts, labels, queries = random_corpus(seed, n_classes=2 + seed % 3)
    alpha = [0.03, 0.5, 1.0, 2.0][seed % 4]
    ours = NaiveBayes(event_model="multinomial", alpha=alpha, tokenizer=WORDS_ONLY)
    ours.fit(texts, labels)
    vectorizer = CountVectorizer(analyzer=WORDS_ONLY)
    theirs = sklearn_nb.MultinomialNB(alpha=alpha).fit(vectorizer.fit_transform(texts), labels)
    assert list(ours.classes_) == list(theirs.classes_)
    their_log_proba = theirs.predict_log_proba(vectorizer.transform(queries))
    assert np.allclose(ours.predict_log_proba(queries), their_log_proba, atol=1e-9)
    assert ours.predict(queries) == list(theirs.predict(vectorizer.transform(queries)))


@pytest.mark.parametrize("seed", range(6))
def test_bernoulli_agrees_with_scikit_learn_on_random_corpora(seed):
    sklearn_nb = pytest.importorskip("sklearn.naive_bayes")
    from sklearn.feature_extraction.text import CountVectorizer

    texts, labels, queries = random_corpus(100 + seed, n_classes=2 + seed % 3)
    ours = NaiveBayes(event_model="bernoulli", alpha=0.5, tokenizer=WORDS_ONLY)
    ours.fit(texts, labels)
    vectorizer = CountVectorizer(analyzer=WORDS_ONLY, binary=True)
    theirs = sklearn_nb.BernoulliNB(alpha=0.5).fit(vectorizer.fit_transform(texts), labels)
    their_log_proba = theirs.predict_log_proba(vectorizer.transform(queries))
    assert np.allclose(ours.predict_log_proba(queries), their_log_proba, atol=1e-9)


@pytest.mark.parametrize("seed", range(6))
def test_complement_agrees_with_scikit_learn_on_random_corpora(seed):
    sklearn_nb = pytest.importorskip("sklearn.naive_bayes")
    from sklearn.feature_extraction.text import CountVectorizer

    texts, labels, queries = random_corpus(200 + seed, n_classes=3 + seed % 4)
    alpha = [0.03, 0.5, 1.0][seed % 3]
    ours = NaiveBayes(event_model="complement", alpha=alpha, tokenizer=WORDS_ONLY)
    ours.fit(texts, labels)
    vectorizer = CountVectorizer(analyzer=WORDS_ONLY)
    theirs = sklearn_nb.ComplementNB(alpha=alpha).fit(vectorizer.fit_transform(texts), labels)
    their_log_proba = theirs.predict_log_proba(vectorizer.transform(queries))
    assert np.allclose(ours.predict_log_proba(queries), their_log_proba, atol=1e-9)
    assert ours.predict(queries) == list(theirs.predict(vectorizer.transform(queries)))


def test_complement_explanation_weights_sum_to_the_log_odds():
    texts, labels, _ = random_corpus(9, n_classes=5)
    model = NaiveBayes(event_model="complement", alpha=0.5, tokenizer=WORDS_ONLY)
    model.fit(texts, labels)
    query = " ".join(texts[0].split()[:6] + ["neverseen"])
    predicted, runner_up, evidence = model.explain(query)
    log_proba = dict(zip(model.classes_, model.predict_log_proba([query])[0], strict=True))
    total = sum(item.weight for item in evidence)   # no prior in the complement model
    assert total == pytest.approx(log_proba[predicted] - log_proba[runner_up])


def test_complement_never_predicts_a_class_missing_from_a_cross_validation_fold():
    import scipy.sparse as sp

    # class "A" has no row in this fold; a text with no known feature ties every
    # weight sum at zero, and a tie would go to the first class, "A"
    counts = sp.csr_matrix(np.array([[2, 0], [0, 1], [1, 1]]))
    model = NaiveBayes(event_model="complement", tokenizer=WORDS_ONLY)
    model.fit_counts(counts, np.array([1, 2, 2]), ["A", "B", "C"], {"snow": 0, "surf": 1})
    rows = sp.csr_matrix(np.array([[0, 0], [1, 0], [0, 1], [3, 2]]))
    assert "A" not in model.predict_counts(rows)


@pytest.mark.parametrize("event_model", ["multinomial", "bernoulli", "complement"])
def test_probabilities_are_normalised_and_consistent_with_log_probabilities(event_model):
    texts, labels, queries = random_corpus(7, n_classes=4)
    model = NaiveBayes(event_model=event_model, tokenizer=Tokenizer()).fit(texts, labels)
    proba = model.predict_proba(queries)
    assert proba.shape == (len(queries), 4)
    assert np.allclose(proba.sum(axis=1), 1.0)
    assert np.allclose(np.log(proba), model.predict_log_proba(queries))
    assert model.predict(queries) == [model.classes_[i] for i in proba.argmax(axis=1)]


def test_long_texts_do_not_underflow():
    model = NaiveBayes(event_model="multinomial", tokenizer=WORDS_ONLY)
    model.fit(THREE_TEXTS, THREE_LABELS)
    proba = model.predict_proba(["surf " * 5000])
    assert np.all(np.isfinite(proba)) and proba[0, 1] == pytest.approx(1.0)


def test_fit_returns_self():
    model = NaiveBayes()
    assert model.fit(THREE_TEXTS, THREE_LABELS) is model


def test_one_class_is_refused():
    with pytest.raises(ValueError, match="two classes"):
        NaiveBayes().fit(["a", "b"], ["E", "E"])


@pytest.mark.parametrize("alpha", [0.0, -1.0, float("nan")])
def test_smoothing_must_be_positive(alpha):
    with pytest.raises(ValueError, match="alpha"):
        NaiveBayes(alpha=alpha).fit(THREE_TEXTS, THREE_LABELS)


def test_top_features_rank_the_words_that_favour_a_class():
    model = NaiveBayes(event_model="multinomial", alpha=1.0, tokenizer=WORDS_ONLY)
    model.fit(THREE_TEXTS, THREE_LABELS)
    # log-odds for W: surf log((2/5)/(1/7)), snow log((2/5)/(3/7)), bagel log((1/5)/(3/7))
    top = model.top_features("W", 3)
    assert [name for name, _ in top] == ["surf", "snow", "bagel"]
    assert top[0][1] == pytest.approx(math.log(14 / 5))
    with pytest.raises(ValueError, match="unknown label"):
        model.top_features("Q")


def test_explanation_weights_sum_to_the_log_odds_of_the_prediction():
    model = NaiveBayes(event_model="multinomial", alpha=1.0, tokenizer=WORDS_ONLY)
    model.fit(THREE_TEXTS, THREE_LABELS)
    predicted, runner_up, evidence = model.explain("surf surf snow kayak")
    assert (predicted, runner_up) == ("W", "E")
    log_proba = model.predict_log_proba(["surf surf snow"])[0]
    prior = model.class_log_prior_[1] - model.class_log_prior_[0]
    total = sum(item.weight for item in evidence)
    assert total + prior == pytest.approx(log_proba[1] - log_proba[0])
    assert evidence[0].token == "surf"
    assert "kayak" not in {item.token for item in evidence}


def test_cross_validation_survives_folds_that_miss_a_class():
    from aviary.classify.evaluate import cross_validate

    texts = ["snow", "snow day", "bagel", "surf"]
    labels = ["E", "E", "E", "W"]
    result = cross_validate(NaiveBayes(tokenizer=WORDS_ONLY), texts, labels, k=4)
    assert len(result.fold_accuracies) == 4
    assert result.fold_accuracies[list(np.random.default_rng(0).permutation(4)).index(3)] == 0.0


def test_package_exports_the_model_and_tokenizer():
    import aviary.classify

    assert aviary.classify.NaiveBayes is NaiveBayes
    assert aviary.classify.Tokenizer is Tokenizer


@pytest.mark.parametrize(("first", "then"), [("multinomial", "complement"),
                                             ("complement", "multinomial"),
                                             ("bernoulli", "bernoulli")])
def test_reestimate_equals_a_fresh_fit_with_the_new_settings(first, then):
    texts, labels, queries = random_corpus(31, n_classes=4)
    model = NaiveBayes(event_model=first, alpha=1.0, tokenizer=WORDS_ONLY).fit(texts, labels)
    model.reestimate(then, 0.2)
    fresh = NaiveBayes(event_model=then, alpha=0.2, tokenizer=WORDS_ONLY).fit(texts, labels)
    assert np.array_equal(model.predict_log_proba(queries), fresh.predict_log_proba(queries))


def test_reestimate_refuses_to_switch_to_or_from_bernoulli():
    model = NaiveBayes(event_model="multinomial", tokenizer=WORDS_ONLY)
    model.fit(THREE_TEXTS, THREE_LABELS)
    with pytest.raises(ValueError, match="Bernoulli"):
        model.reestimate("bernoulli", 1.0)
