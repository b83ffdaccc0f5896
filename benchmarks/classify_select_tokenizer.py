"""Choose the classifier's default settings by 5-fold CV on the TRAINING file only.

    .venv/bin/python benchmarks/classify_select_tokenizer.py [DATA_DIR]

Every combination of the grid below is cross-validated on the same five
folds (seed 0) of `tweets.location.train.txt`; the test file is never read.
The rule: the highest mean CV accuracy wins (ties: the earlier row, i.e.
fewer features). The table is printed best first.
"""

from __future__ import annotations

import itertools
import time
from pathlib import Path

from aviary.classify.data import read_labeled
from aviary.classify.evaluate import cross_validate_grid
from aviary.classify.naive_bayes import NaiveBayes
from aviary.classify.tokenize import Tokenizer
from aviary.errors import ArgumentParser
from script import run_main

ROOT = Path(__file__).resolve().parents[1]
CHAR_NGRAMS = [(0, 0), (3, 5), (2, 5), (3, 6)]
WORD_BIGRAMS = [False, True]
BINARY = [False, True]
HASHTAGS = ["merge", "both"]
SETTINGS = [(event, alpha) for event in ("multinomial", "bernoulli")
            for alpha in (0.03, 0.1, 0.3, 1.0)]


def main() -> int:
    parser = ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", nargs="?", type=Path, default=ROOT.parent / "shared" / "data",
                        help="folder holding tweets.location.train.txt (default ../shared/data)")
    data = parser.parse_args().data
    train = read_labeled(data / "tweets.location.train.txt")
    rows = []
    started = time.perf_counter()
    for char_ngrams, bigrams, binary, hashtags in itertools.product(
        CHAR_NGRAMS, WORD_BIGRAMS, BINARY, HASHTAGS
    ):
        tokenizer = Tokenizer(char_ngrams=char_ngrams, word_bigrams=bigrams, binary=binary,
                              hashtags=hashtags)  # type: ignore[arg-type]
        results = cross_validate_grid(NaiveBayes(tokenizer=tokenizer), train.texts,
                                      train.labels, SETTINGS, k=5, seed=0)
        for (event, alpha), result in zip(SETTINGS, results, strict=True):
            rows.append((result.mean, result.standard_error, event, alpha, char_ngrams,
                         bigrams, binary, hashtags))
    order = sorted(range(len(rows)), key=lambda i: (-rows[i][0], i))
    print(f"{len(rows)} settings, 5-fold CV on {len(train.texts)} training tweets, "
          f"{time.perf_counter() - started:.0f} s\n")
    print("  CV acc   s.e.  event        alpha  char-ngrams  bigrams  binary  hashtags")
    for rank, i in enumerate(order):
        mean, se, event, alpha, grams, bigrams, binary, hashtags = rows[i]
        if rank < 25 or (grams == (0, 0) and not bigrams and rank < 200):
            gram_text = "off" if grams == (0, 0) else f"{grams[0]}-{grams[1]}"
            print(f"  {100 * mean:6.2f}  {100 * se:5.2f}  {event:11s}  {alpha:5.2f}  "
                  f"{gram_text:11s}  {bigrams!s:7s}  {binary!s:6s}  {hashtags}")
    best = rows[order[0]]
    print(f"\nchosen: {best[2:]} with CV {100 * best[0]:.2f}%")
    return 0


if __name__ == "__main__":
    run_main(main)
