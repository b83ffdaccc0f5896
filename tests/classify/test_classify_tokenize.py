"""The tokenizer's documented options."""

from __future__ import annotations

import pytest

from aviary.classify.tokenize import Tokenizer, is_ngram

PLAIN = Tokenizer(char_ngrams=(0, 0), word_bigrams=False, hashtags="merge", binary=False)


def test_lowercases_and_strips_punctuation():
    assert PLAIN("NYC!! (Brooklyn), don't") == ["nyc", "brooklyn", "don", "t"]


def test_case_and_punctuation_can_be_kept():
    tokenizer = Tokenizer(lowercase=False, punctuation="keep", char_ngrams=(0, 0),
                          word_bigrams=False)
    assert tokenizer("NYC!! (Brooklyn)") == ["NYC!!", "(Brooklyn)"]


@pytest.mark.parametrize(
    ("rule", "expected"),
    [("merge", ["i", "nyc"]), ("keep", ["i", "#nyc"]), ("both", ["i", "nyc", "#nyc"]),
     ("drop", ["i"])],
)
def test_hashtag_rules(rule, expected):
    tokenizer = Tokenizer(char_ngrams=(0, 0), word_bigrams=False, hashtags=rule)
    assert tokenizer("I #NYC") == expected


def test_handle_rules_are_separate_from_hashtags():
    tokenizer = Tokenizer(char_ngrams=(0, 0), word_bigrams=False, hashtags="keep",
                          handles="drop")
    assert tokenizer("@joe #la") == ["#la"]


def test_char_ngrams_stay_inside_marked_words():
    tokenizer = Tokenizer(char_ngrams=(3, 3), word_bigrams=False)
    assert tokenizer("ny la") == ["ny", "la", "~<ny", "~ny>", "~<la", "~la>"]
    assert all(is_ngram(f) for f in tokenizer("ny la")[2:])


def test_word_bigrams_join_adjacent_words():
    tokenizer = Tokenizer(char_ngrams=(0, 0), word_bigrams=True)
    assert tokenizer("San Diego, CA") == ["san", "diego", "ca", "san diego", "diego ca"]


def test_binary_counts_each_feature_once():
    tokenizer = Tokenizer(char_ngrams=(0, 0), word_bigrams=False, binary=True)
    assert tokenizer("la la la ny") == ["la", "ny"]


def test_unicode_words_are_kept():
    assert PLAIN("Café São-Paulo") == ["café", "são", "paulo"]


@pytest.mark.parametrize(
    "options", [{"char_ngrams": (3, 2)}, {"char_ngrams": (0, 4)}, {"hashtags": "eat"},
                {"words": False, "char_ngrams": (0, 0)}, {"punctuation": "odd"}],
)
def test_bad_options_are_refused(options):
    with pytest.raises(ValueError):
        Tokenizer(**options)


def test_options_round_trip_through_plain_data():
    tokenizer = Tokenizer(char_ngrams=(2, 4), hashtags="keep", binary=True)
    assert Tokenizer.from_dict(tokenizer.to_dict()) == tokenizer
    with pytest.raises(ValueError, match="unknown"):
        Tokenizer.from_dict({"stemming": True})
