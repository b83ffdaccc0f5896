"""aviary's Naive Bayes against scikit-learn's CountVectorizer + MultinomialNB/BernoulliNB.

    .venv/bin/python benchmarks/classify_vs_sklearn.py [DATA_DIR] [--repeats N]

On the course tweet files, in the same run, for two feature sets:

- words: lowercase letter/digit runs, `#tag` merged with `tag`, multinomial,
  alpha = 1 (the course's model, done well);
- default: aviary's defaults (words, word pairs, character 3-5-grams inside
  words, `#tag` kept as well as merged, each feature once per tweet;
  multinomial, alpha = 0.03).

"Same features": scikit-learn's CountVectorizer is handed aviary's own
tokenizer as its analyzer (a fresh instance per run, so neither side
inherits the other's n-gram cache), so both sides count exactly the same
features and the timing compares counting + fitting + predicting. For
context, the words set is also run with CountVectorizer's own regex
tokenizer. Fit + predict times are the best of N runs (the machine is
shared, so absolute times are pessimistic; runs are interleaved so the
ratio, which is what is claimed, compares like with like).
Accuracy: the test file, and 5-fold CV on the training file (seed-0 folds,
the same for both sides).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.naive_bayes import BernoulliNB, MultinomialNB

from aviary.classify.data import read_labeled
from aviary.classify.evaluate import accuracy, cross_validate, fold_indices
from aviary.classify.naive_bayes import NaiveBayes
from aviary.classify.tokenize import Tokenizer

ROOT = Path(__file__).resolve().parents[1]
Predictor = Callable[[Sequence[str], Sequence[str], Sequence[str]], list[str]]


def words_tokenizer() -> Tokenizer:
    return Tokenizer(char_ngrams=(0, 0), word_bigrams=False, hashtags="merge", binary=False)


def ours(event_model: str, alpha: float, tokenizer: Callable[[], Tokenizer]) -> Predictor:
    def run(texts: Sequence[str], labels: Sequence[str], queries: Sequence[str]) -> list[str]:
        model = NaiveBayes(event_model=event_model, alpha=alpha,  # type: ignore[arg-type]
                           tokenizer=tokenizer())
        return model.fit(texts, labels).predict(queries)

    return run


def sklearn(event_model: str, alpha: float, analyzer: Callable[[], object]) -> Predictor:
    def run(texts: Sequence[str], labels: Sequence[str], queries: Sequence[str]) -> list[str]:
        made = analyzer()
        vectorizer = (CountVectorizer(analyzer=made) if callable(made)
                      else CountVectorizer(token_pattern=r"(?u)\b\w+\b"))
        nb = MultinomialNB(alpha=alpha) if event_model == "multinomial" else BernoulliNB(
            alpha=alpha)
        nb.fit(vectorizer.fit_transform(texts), labels)
        return list(nb.predict(vectorizer.transform(queries)))

    return run


def best_times(runs: list[Predictor], train, test, repeats: int) -> list[float]:
    """Best-of-N fit+predict seconds for each run, interleaved round-robin so that
    every contender sees the same share of the (shared, noisy) machine."""
    times: list[list[float]] = [[] for _ in runs]
    for _ in range(repeats):
        for index, run in enumerate(runs):
            started = time.perf_counter()
            run(train.texts, train.labels, test.texts)
            times[index].append(time.perf_counter() - started)
    return [min(each) for each in times]


def cv_accuracy(run: Predictor, train, k: int = 5) -> float:
    labels = np.asarray(train.labels, dtype=object)
    texts = np.asarray(train.texts, dtype=object)
    scores = []
    for held_out in fold_indices(len(texts), k, seed=0):
        keep = np.setdiff1d(np.arange(len(texts)), held_out)
        predicted = run(list(texts[keep]), list(labels[keep]), list(texts[held_out]))
        scores.append(accuracy(predicted, list(labels[held_out])))
    return float(np.mean(scores))


def main(argv: list[str]) -> int:
    repeats = 3
    if "--repeats" in argv:
        at = argv.index("--repeats")
        repeats = int(argv[at + 1])
        argv = argv[:at] + argv[at + 2:]
    data = Path(argv[0]) if argv else ROOT.parent / "shared" / "data"
    train = read_labeled(data / "tweets.location.train.txt")
    test = read_labeled(data / "tweets.location.test.txt")
    print(f"{len(train.texts)} training, {len(test.texts)} test tweets; best of {repeats} "
          "fit+predict runs; 5-fold CV seed 0\n")
    print(f"{'features':9s} {'implementation':46s} {'test':>7s} {'5-fold':>7s} "
          f"{'fit+pred':>9s} {'sklearn/ours':>12s}")
    groups = [
        ("words", [
            ("aviary multinomial a=1", ours("multinomial", 1.0, words_tokenizer)),
            ("sklearn CountVectorizer(aviary analyzer)+MNB",
             sklearn("multinomial", 1.0, words_tokenizer)),
            ("sklearn CountVectorizer(own regex)+MNB", sklearn("multinomial", 1.0, lambda: None)),
        ]),
        ("default", [
            ("aviary defaults (multinomial a=0.03)", ours("multinomial", 0.03, Tokenizer)),
            ("sklearn CountVectorizer(aviary analyzer)+MNB",
             sklearn("multinomial", 0.03, Tokenizer)),
        ]),
        ("default", [
            ("aviary Bernoulli a=0.03", ours("bernoulli", 0.03, Tokenizer)),
            ("sklearn CountVectorizer(aviary analyzer)+BNB",
             sklearn("bernoulli", 0.03, Tokenizer)),
        ]),
    ]
    for features, contenders in groups:
        seconds = best_times([run for _, run in contenders], train, test, repeats)
        for index, (name, run) in enumerate(contenders):
            ratio = f"{seconds[index] / seconds[0]:.2f}x" if index else ""
            test_accuracy = accuracy(run(train.texts, train.labels, test.texts), test.labels)
            cv = cv_accuracy(run, train)
            print(f"{features:9s} {name:46s} {100 * test_accuracy:6.2f}% {100 * cv:6.2f}% "
                  f"{seconds[index]:8.2f}s {ratio:>12s}", flush=True)
    check = cross_validate(NaiveBayes(), train.texts, train.labels, k=5, seed=0)
    print(f"\naviary defaults via evaluate.cross_validate (features of held-out folds "
          f"excluded): {100 * check.mean:.2f}% +/- {100 * check.standard_error:.2f}%")
    print("sklearn/ours > 1 means aviary is faster.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
