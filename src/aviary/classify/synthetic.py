"""Generated tweet files shaped like the hard years of the course's data.

Some years shipped twelve cities instead of two coasts, with labels like
`Los_Angeles,_CA`, Latin-1 bytes, CR LF endings and thousands of tweets
holding a bare CR inside the text. The course files are not the project's to
commit, so tests and `benchmarks/classify_vs_sklearn.py --cities` use files
made here: same shape, seeded, with a known truth.

A tweet is mostly words every city uses (Zipf-distributed), some words of its
region (the three Californian cities share some, so do the north-east ones),
some of its own city (place names, generated local words, `#tags`), a few
Latin-1 words, an `@handle` now and then; about one tweet in six has a bare
CR between two words, and a few end with one just before the CR LF. City
sizes are unbalanced (the largest about six times the smallest). Some
tweets carry no local word at all, so no classifier scores 100%.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from aviary.errors import ArgumentParser, UsageError

CITIES = {
    "Atlanta,_GA": ("south", ("atlanta", "atl", "buckhead", "peachtree", "midtown")),
    "Boston,_MA": ("northeast", ("boston", "fenway", "cambridge", "southie", "backbay")),
    "Chicago,_IL": ("midwest", ("chicago", "chitown", "wrigley", "theloop", "lakeview")),
    "Houston,_TX": ("south", ("houston", "htown", "galleria", "montrose", "heights")),
    "Los_Angeles,_CA": ("california", ("la", "hollywood", "venice", "dtla", "silverlake")),
    "Manhattan,_NY": ("northeast", ("nyc", "manhattan", "soho", "harlem", "brooklyn")),
    "Orlando,_FL": ("south", ("orlando", "disney", "epcot", "kissimmee", "winterpark")),
    "Philadelphia,_PA": ("northeast", ("philly", "philadelphia", "fishtown", "southst")),
    "San_Diego,_CA": ("california", ("sandiego", "lajolla", "gaslamp", "pacificbeach")),
    "San_Francisco,_CA": ("california", ("sf", "mission", "soma", "castro", "goldengate")),
    "Toronto,_Ontario": ("canada", ("toronto", "yyz", "the6ix", "kensington", "leafs")),
    "Washington,_DC": ("northeast", ("dc", "georgetown", "capitol", "dupont", "navyyard")),
}
LATIN1_WORDS = ("café", "jalapeño", "señor", "crème", "brûlée", "naïve", "façade", "Müller",
                "piñata", "résumé", "über", "São")
SYLLABLES = ("ka", "lo", "mi", "ra", "te", "su", "no", "vi", "be", "do", "ga", "pe", "zu",
             "ha", "ri", "mo", "tan", "ber", "son", "ley", "ton", "ville", "wood", "ford")


@dataclass(frozen=True)
class Tweets:
    """Parallel labels and texts; a text may hold bare CRs ("\\r")."""

    labels: list[str]
    texts: list[str]


def _words(rng: np.random.Generator, count: int, prefix: str = "") -> list[str]:
    made: set[str] = set()
    while len(made) < count:
        parts = rng.choice(SYLLABLES, size=int(rng.integers(2, 4)))
        made.add(prefix + "".join(parts))
    return sorted(made)


def _zipf_cdf(size: int) -> np.ndarray:
    weights = 1.0 / np.arange(1, size + 1) ** 1.1
    return np.cumsum(weights / weights.sum())


def _pick(rng: np.random.Generator, words: list[str], cdf: np.ndarray) -> str:
    return words[min(int(np.searchsorted(cdf, rng.random())), len(words) - 1)]


class _Vocabulary:
    def __init__(self, seed: int) -> None:
        rng = np.random.default_rng(seed)
        self.common = list(rng.permutation(_words(rng, 3000)))
        self.common_cdf = _zipf_cdf(len(self.common))
        regions = sorted({region for region, _ in CITIES.values()})
        self.regional = {region: _words(rng, 60) for region in regions}
        self.local = {city: list(names) + list(rng.permutation(_words(rng, 120)))
                      for city, (_, names) in CITIES.items()}
        self.local_cdf = {city: _zipf_cdf(len(words)) for city, words in self.local.items()}


def generate(n: int, seed: int, vocabulary_seed: int = 0) -> Tweets:
    """`n` tweets over the twelve cities; the same `vocabulary_seed` gives the same
    cities' words and sizes, so a train and a test file (different `seed`s) match."""
    vocabulary = _Vocabulary(vocabulary_seed)
    rng = np.random.default_rng(seed)
    cities = list(CITIES)
    size_weights = 1.0 / np.arange(1, len(cities) + 1) ** 0.75
    size_weights = np.random.default_rng(vocabulary_seed).permutation(size_weights)
    chosen = rng.choice(len(cities), size=n, p=size_weights / size_weights.sum())
    labels: list[str] = []
    texts: list[str] = []
    for index in chosen:
        city = cities[index]
        region = CITIES[city][0]
        local_share = 0.0 if rng.random() < 0.15 else rng.uniform(0.03, 0.2)
        words: list[str] = []
        for _ in range(int(rng.integers(4, 18))):
            draw = rng.random()
            if draw < local_share:
                word = _pick(rng, vocabulary.local[city], vocabulary.local_cdf[city])
                if rng.random() < 0.3:
                    word = "#" + word
            elif draw < local_share + 0.06:
                word = vocabulary.regional[region][int(rng.integers(60))]
            elif draw < local_share + 0.08:
                word = LATIN1_WORDS[int(rng.integers(len(LATIN1_WORDS)))]
            elif draw < local_share + 0.10:
                word = "@" + vocabulary.common[int(rng.integers(len(vocabulary.common)))]
            else:
                word = _pick(rng, vocabulary.common, vocabulary.common_cdf)
            words.append(word.upper() if rng.random() < 0.05 else word)
        text = " ".join(words)
        if rng.random() < 0.17:  # an old Mac line break typed inside the tweet
            at = int(rng.integers(1, len(words)))
            separator = ("\r", " \r", "\r\r", "\r ")[int(rng.integers(4))]
            text = " ".join(words[:at]) + separator + " ".join(words[at:])
        if rng.random() < 0.03:
            text += "\r"  # a bare CR right before the CR LF ending
        labels.append(city)
        texts.append(text)
    return Tweets(labels, texts)


def write_tweet_file(path: str | Path, tweets: Tweets) -> None:
    """`LABEL text` records in Latin-1 with CR LF endings, as those years shipped."""
    Path(path).write_bytes(b"".join(
        f"{label} {text}\r\n".encode("latin-1")
        for label, text in zip(tweets.labels, tweets.texts, strict=True)))


def main(argv: list[str] | None = None) -> int:
    """`python -m aviary.classify.synthetic TRAIN TEST [--tweets N] [--seed S]`.

    Writes a generated training file of N tweets (seed S) and a test file of N/4
    (seed S + 1) over the same twelve cities, so `aviary classify` can be tried
    without the course's files (which the project does not ship).
    """
    parser = ArgumentParser(
        prog="python -m aviary.classify.synthetic",
        description="write a generated twelve-city training file and test file")
    parser.add_argument("train", type=Path)
    parser.add_argument("test", type=Path)
    parser.add_argument("--tweets", type=int, default=2000,
                        help="training tweets (default 2000; the test file gets a quarter)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the training file")
    try:
        return _write(parser.parse_args(argv), parser)
    except UsageError as error:  # one line, exit 2, as the aviary commands do
        print(error, file=sys.stderr)
        return 2


def _write(args: argparse.Namespace, parser: ArgumentParser) -> int:
    if args.tweets < 4:
        parser.error("--tweets must be at least 4")
    for path in (args.train, args.test):
        if path.exists():
            parser.error(f"{path} exists; not replacing it")
    write_tweet_file(args.train, generate(args.tweets, seed=args.seed))
    write_tweet_file(args.test, generate(args.tweets // 4, seed=args.seed + 1))
    print(f"wrote {args.train} ({args.tweets} tweets) and {args.test} ({args.tweets // 4})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
