"""Turning a tweet into the features Naive Bayes counts.

Tokenization decides this task far more than the model or its smoothing:
where a tweet was sent from shows in place names, local businesses and
hashtags (`#nyc`, `@ San Diego, California`), often seen only a handful of
times, so the tokenizer keeps every token, lets `#nyc` and `nyc` count as the
same word, and adds character n-grams inside words so that `brooklyn`,
`#brooklynbridge` and `brooklyn's` share evidence.

Every option is a field of the frozen `Tokenizer`; the defaults are the
settings chosen by 5-fold cross-validation on the course's training file
(never by test accuracy; the README gives the figures).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, fields
from typing import Any, Literal

Affix = Literal["merge", "keep", "both", "drop"]
AFFIX_CHOICES: tuple[str, ...] = ("merge", "keep", "both", "drop")

# "strip": a word is a run of letters and digits (any script); "#" and "@"
# directly in front of one mark a hashtag or a handle.
_STRIP_WORDS = re.compile(r"[#@]?[^\W_]+")


@dataclass(frozen=True)
class Tokenizer:
    """Options that turn one text into a list of feature strings.

    lowercase:   fold case first (`NYC` == `nyc`).
    punctuation: "strip" keeps only runs of letters and digits, so `nyc!!`,
                 `(nyc)` and `nyc's` all give `nyc`; "keep" splits on
                 whitespace only and keeps every character.
    hashtags:    what `#nyc` becomes: "merge" -> `nyc` (same as the word),
                 "keep" -> `#nyc` (a feature of its own), "both" -> both,
                 "drop" -> nothing.
    handles:     the same choice for `@user` mentions.
    char_ngrams: (low, high) lengths of character n-grams taken inside each
                 word marked `<word>` at its ends (as fastText does), so with
                 (3, 5) `nyc` yields `<ny`, `nyc`, `yc>`, `<nyc`, `nyc>`,
                 `<nyc>`; each is emitted with a `~` in front (`~<ny`) so an
                 n-gram is never mistaken for a word. (0, 0) turns them off.
                 They are added to the words, never replace them.
    words:       emit the words themselves as features.
    word_bigrams: also emit each pair of adjacent words, joined by a space
                 (`"san diego"`), which no in-word n-gram can contain.
    binary:      count each feature at most once per text (presence rather
                 than frequency); with the Bernoulli model it is implied.
    """

    lowercase: bool = True
    punctuation: Literal["strip", "keep"] = "strip"
    hashtags: Affix = "both"
    handles: Affix = "merge"
    char_ngrams: tuple[int, int] = (3, 5)
    words: bool = True
    word_bigrams: bool = True
    binary: bool = True
    _grams: dict[str, tuple[str, ...]] = field(
        default_factory=dict, init=False, repr=False, compare=False, hash=False
    )

    def __post_init__(self) -> None:
        low, high = self.char_ngrams
        if not (0 <= low <= high) or (low == 0) != (high == 0):
            raise ValueError(f"char_ngrams must be (0, 0) or 1 <= low <= high, not {low, high}")
        if self.punctuation not in ("strip", "keep"):
            raise ValueError(f"punctuation must be 'strip' or 'keep', not {self.punctuation!r}")
        for name in ("hashtags", "handles"):
            if getattr(self, name) not in AFFIX_CHOICES:
                raise ValueError(f"{name} must be one of {AFFIX_CHOICES}")
        if not self.words and low == 0:
            raise ValueError("with words=False, char_ngrams must be on, or there are no features")

    def split(self, text: str) -> tuple[list[str], list[str]]:
        """(words, marked forms such as `#nyc` kept as extra features under "both")."""
        if self.lowercase:
            text = text.lower()
        raw = _STRIP_WORDS.findall(text) if self.punctuation == "strip" else text.split()
        if "#" not in text and "@" not in text:
            return raw, []
        words: list[str] = []
        marked: list[str] = []
        for word in raw:
            first = word[0]
            if (first == "#" or first == "@") and len(word) > 1:
                rule = self.hashtags if first == "#" else self.handles
                if rule == "merge":
                    words.append(word[1:])
                elif rule == "keep":
                    words.append(word)
                elif rule == "both":
                    words.append(word[1:])
                    marked.append(word)
            else:
                words.append(word)
        return words, marked

    def features_of_word(self, word: str) -> list[str]:
        """The features one word contributes: itself (if `words`) and its n-grams."""
        low, high = self.char_ngrams
        own = [word] if self.words else []
        return own + list(_char_ngrams(word, low, high)) if low else own

    def __call__(self, text: str) -> list[str]:
        """The features of `text`, repeated as often as they occur.

        In order: words, their character n-grams, word pairs, marked forms.
        """
        words, marked = self.split(text)
        low, high = self.char_ngrams
        features = list(words) if self.words else []
        if low:
            cache = self._grams
            if len(cache) > _CACHE_LIMIT:  # a long-running predictor must not grow forever
                cache.clear()
            for word in words:
                grams = cache.get(word)
                if grams is None:
                    grams = cache[word] = _char_ngrams(word, low, high)
                features += grams
        if self.word_bigrams:
            features += [f"{a} {b}" for a, b in zip(words, words[1:], strict=False)]
        if self.words:
            features += marked
        if self.binary:
            return list(dict.fromkeys(features))
        return features

    def to_dict(self) -> dict[str, Any]:
        """The options as JSON-ready data (for saved models)."""
        data = {f.name: getattr(self, f.name) for f in fields(self) if f.init}
        data["char_ngrams"] = list(self.char_ngrams)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Tokenizer:
        """Rebuild from `to_dict` output; unknown or ill-typed options raise ValueError."""
        known = {f.name for f in fields(cls) if f.init}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"unknown tokenizer options: {sorted(unknown)}")
        options = dict(data)
        if "char_ngrams" in options:
            low, high = options["char_ngrams"]
            options["char_ngrams"] = (int(low), int(high))
        for name in ("lowercase", "words", "word_bigrams", "binary"):
            if name in options and not isinstance(options[name], bool):
                raise ValueError(f"tokenizer option {name} must be true or false")
        return cls(**options)


NGRAM_MARK = "~"
_CACHE_LIMIT = 200_000  # distinct words whose n-grams are remembered (tweets repeat words)


def _char_ngrams(word: str, low: int, high: int) -> tuple[str, ...]:
    marked = f"<{word}>"
    size = len(marked)
    return tuple(
        NGRAM_MARK + marked[start : start + n]
        for n in range(low, high + 1)
        for start in range(size - n + 1)
    )


def is_ngram(feature: str) -> bool:
    """True for a character n-gram feature, False for a word or word pair."""
    return feature.startswith(NGRAM_MARK)


def describe(tokenizer: Tokenizer) -> str:
    """One line naming the options, for reports."""
    return ", ".join(f"{key}={value}" for key, value in tokenizer.to_dict().items())
