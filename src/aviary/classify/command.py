"""`aviary classify`: the course's Naive Bayes tool, plus saved models.

    aviary classify TRAIN TEST [--predictions FILE] [--cv K] [--explain] [--explain-text T]
    aviary classify TRAIN --cv K            (TEST may be left out with --cv / --explain*)
    aviary classify fit TRAIN --model m.json
    aviary classify predict --model m.json FILE

`fit` and `predict` always take `--model`, and the course form never does,
so the first word decides: `fit`/`predict` is a subcommand when `--model` is
among the arguments or no file of that name exists; otherwise it is a file
name (the course form), so a training file literally named `fit` still works.
"""

from __future__ import annotations

import argparse
import itertools
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from aviary.classify.data import Labeled, iter_labeled, iter_lines, read_labeled
from aviary.classify.defaults import (
    ALPHA_CHOICES,
    AUTO_EVENT_MODELS,
    CHOICE_FOLDS,
    DEFAULT_ALPHA,
    DEFAULT_EVENT_MODEL,
)
from aviary.classify.tokenize import AFFIX_CHOICES, Tokenizer
from aviary.errors import ArgumentParser, UsageError
from aviary.outputs import check_output, write_text_atomically

if TYPE_CHECKING:  # scipy loads only once input has been checked: bad input fails fast
    from aviary.classify.naive_bayes import NaiveBayes

SUBCOMMANDS = ("fit", "predict")


def main(argv: list[str]) -> int:
    if _is_subcommand(argv):
        return _fit(argv[1:]) if argv[0] == "fit" else _predict(argv[1:])
    return _course(argv)


def _is_subcommand(argv: Sequence[str]) -> bool:
    if not argv or argv[0] not in SUBCOMMANDS:
        return False
    wants_model = any(arg == "--model" or arg.startswith("--model=") for arg in argv[1:])
    return wants_model or not Path(argv[0]).exists()


# -- options shared by the course form and `fit` --------------------------------


def _add_model_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("model and tokenizer (defaults chosen by 5-fold CV)")
    group.add_argument("--event-model", choices=("auto", "multinomial", "bernoulli",
                                                 "complement"), default="auto",
                       help=f"Naive Bayes event model; auto (the default) is "
                       f"{DEFAULT_EVENT_MODEL}, or complement when it cross-validates better "
                       "by more than one standard error on TRAIN")
    choices = ", ".join(f"{alpha:g}" for alpha in ALPHA_CHOICES)
    group.add_argument("--alpha", type=_parse_alpha, default=None, metavar="ALPHA|auto",
                       help="additive smoothing constant > 0; auto (the default) picks the "
                       f"best of {choices} by {CHOICE_FOLDS}-fold CV on TRAIN")
    group.add_argument("--uniform-prior", action="store_true",
                       help="ignore class frequencies (every class equally likely a priori)")
    group.add_argument("--char-ngrams", default=None, metavar="LOW-HIGH|off",
                       help="character n-grams inside words, e.g. 3-5 (default), or off")
    group.add_argument("--no-word-bigrams", action="store_true",
                       help="leave out pairs of adjacent words")
    group.add_argument("--no-words", action="store_true",
                       help="leave out whole words (n-grams only)")
    group.add_argument("--binary", action=argparse.BooleanOptionalAction, default=None,
                       help="count each feature once per text (default yes; --no-binary "
                       "counts repeats)")
    group.add_argument("--case-sensitive", action="store_true", help="do not lowercase")
    group.add_argument("--keep-punctuation", action="store_true",
                       help="split on whitespace only, keeping punctuation in tokens")
    group.add_argument("--hashtags", choices=AFFIX_CHOICES, default=None,
                       help="#tag: merge with the word, keep apart, both (default), drop")
    group.add_argument("--handles", choices=AFFIX_CHOICES, default=None,
                       help="@user: same choices (default merge)")


def _model_from(options: argparse.Namespace) -> NaiveBayes:
    defaults = Tokenizer()
    char_ngrams = defaults.char_ngrams
    if options.char_ngrams is not None:
        char_ngrams = _parse_ngrams(options.char_ngrams)
    try:
        tokenizer = Tokenizer(
            lowercase=not options.case_sensitive,
            punctuation="keep" if options.keep_punctuation else "strip",
            hashtags=options.hashtags or defaults.hashtags,
            handles=options.handles or defaults.handles,
            char_ngrams=char_ngrams,
            words=not options.no_words,
            word_bigrams=defaults.word_bigrams and not options.no_word_bigrams,
            binary=defaults.binary if options.binary is None else options.binary,
        )
    except ValueError as error:
        message = str(error).replace("with words=False, char_ngrams must be on",
                                     "--no-words needs character n-grams (--char-ngrams LOW-HIGH)")
        raise UsageError(f"classify: {message}") from None
    from aviary.classify.naive_bayes import NaiveBayes

    event_model = DEFAULT_EVENT_MODEL if options.event_model == "auto" else options.event_model
    return NaiveBayes(event_model=event_model,
                      alpha=DEFAULT_ALPHA if options.alpha is None else options.alpha,
                      fit_prior=not options.uniform_prior, tokenizer=tokenizer)


def _parse_alpha(text: str) -> float | None:
    """`--alpha`: None means auto (chosen by cross-validation when fitting)."""
    if text == "auto":
        return None
    try:
        alpha = float(text)
    except ValueError:
        alpha = float("nan")
    if not alpha > 0 or alpha == float("inf"):
        raise UsageError(f"classify: --alpha must be a positive number or auto, not {text!r}")
    return alpha


def _fitted(model: NaiveBayes, train: Labeled, options: argparse.Namespace) -> NaiveBayes:
    """`model` fitted on TRAIN; an `auto` event model or alpha is chosen by cross-validation."""
    event_models = AUTO_EVENT_MODELS if options.event_model == "auto" else (model.event_model,)
    alphas = ALPHA_CHOICES if options.alpha is None else (model.alpha,)
    folds = min(CHOICE_FOLDS, len(train.texts))
    if len(event_models) * len(alphas) == 1 or folds < 2:
        return model.fit(train.texts, train.labels)
    from aviary.classify.evaluate import choose_settings

    return choose_settings(model, train.texts, train.labels, event_models, alphas, folds).model


def _parse_ngrams(text: str) -> tuple[int, int]:
    if text == "off":
        return (0, 0)
    low, _, high = text.partition("-")
    try:
        pair = (int(low), int(high or low))
    except ValueError:
        raise UsageError(f"classify: --char-ngrams wants LOW-HIGH (e.g. 3-5) or off, "
                         f"not {text!r}") from None
    if not 1 <= pair[0] <= pair[1]:
        raise UsageError(f"classify: --char-ngrams needs 1 <= LOW <= HIGH, not {text!r}")
    return pair


def _require_two_classes(train: Labeled, name: str) -> None:
    if len(set(train.labels)) < 2:
        only = train.labels[0]
        raise UsageError(f"classify: {name} has only one class ({only!r}); "
                         "need at least two to tell apart")


# -- course form -----------------------------------------------------------------


def _course_parser() -> ArgumentParser:
    parser = ArgumentParser(
        prog="aviary classify",
        description="Train Naive Bayes on TRAIN ('LABEL text...' lines) and report accuracy "
        "on TEST. Also: 'aviary classify fit TRAIN --model m.json' and "
        "'aviary classify predict --model m.json FILE'.",
    )
    parser.add_argument("train", metavar="TRAIN", help="training file, 'LABEL text...' per line")
    parser.add_argument("test", metavar="TEST", nargs="?",
                        help="test file in the same format (optional with --cv or --explain*)")
    parser.add_argument("--predictions", metavar="FILE",
                        help="write the predicted label of each TEST line, one per line")
    parser.add_argument("--force", action="store_true",
                        help="allow --predictions to replace an existing file")
    parser.add_argument("--cv", type=int, metavar="K",
                        help="K-fold cross-validation accuracy on TRAIN, with its standard error")
    parser.add_argument("--seed", type=int, default=0, help="shuffle seed for --cv (default 0)")
    parser.add_argument("--explain", action="store_true",
                        help="print the 20 most telling words per class")
    parser.add_argument("--explain-text", metavar="TEXT",
                        help="show which words drove the prediction for TEXT")
    _add_model_options(parser)
    return parser


def _course(argv: list[str]) -> int:
    options = _course_parser().parse_args(argv)
    if options.cv is not None and options.cv < 2:
        raise UsageError(f"classify: --cv K needs K >= 2, not {options.cv}")
    explaining = options.explain or options.explain_text is not None
    if options.test is None and not (options.cv or explaining):
        raise UsageError("classify: give TEST (or --cv K, --explain, --explain-text); "
                         "see aviary classify --help")
    if options.predictions and options.test is None:
        raise UsageError("classify: --predictions needs a TEST file")
    if options.predictions:
        _check_output(Path(options.predictions), options.force,
                      [options.train] + ([options.test] if options.test else []))
    train = read_labeled(options.train)
    test = read_labeled(options.test) if options.test else None
    _require_two_classes(train, options.train)
    if test is not None:
        unseen = sorted(set(test.labels) - set(train.labels))
        if unseen:
            raise UsageError(f"classify: {options.test} has labels never seen in "
                             f"{options.train}: {', '.join(map(repr, unseen[:5]))}")
    model = _model_from(options)
    if options.cv is not None and options.cv > len(train.texts):
        raise UsageError(f"classify: --cv {options.cv} needs at least {options.cv} training "
                         f"lines, the file has {len(train.texts)}")
    model = _fitted(model, train, options)
    if options.cv is not None:
        _print_cross_validation(model, train, options.cv, options.seed)
    if test is None and not explaining:
        return 0
    if test is not None:
        predicted = model.predict(test.texts)
        if options.predictions:
            _write_lines(Path(options.predictions), predicted)
        correct = sum(p == t for p, t in zip(predicted, test.labels, strict=True))
        print(f"Classification accuracy = {100 * correct / len(test.labels):.2f}%", flush=True)
    if options.explain:
        _print_top_features(model)
    if options.explain_text is not None:
        _print_explanation(model, options.explain_text)
    return 0


def _print_cross_validation(model: NaiveBayes, train: Labeled, k: int, seed: int) -> None:
    from aviary.classify.evaluate import cross_validate

    result = cross_validate(model, train.texts, train.labels, k, seed)
    print(f"{k}-fold cross-validation accuracy = {100 * result.mean:.2f}% "
          f"(standard error {100 * result.standard_error:.2f}%)", flush=True)


def _print_top_features(model: NaiveBayes, k: int = 20) -> None:
    words_only = model.analyzer.words
    for label in model.classes_:
        print(f"\nMost telling {'words' if words_only else 'features'} for {label} "
              f"(log-odds against the strongest other class, nats):")
        for feature, odds in model.top_features(str(label), k, words_only=words_only):
            print(f"  {odds:6.2f}  {feature}")


def _print_explanation(model: NaiveBayes, text: str) -> None:
    predicted, runner_up, evidence = model.explain(text)
    probability = model.predict_proba([text])[0]
    share = dict(zip(model.classes_, probability, strict=True))
    print(f"\n{text!r} -> {predicted} (P = {share[predicted]:.3f}; runner-up {runner_up}, "
          f"P = {share[runner_up]:.3f})")
    if not evidence:
        print("  no word of this text was seen in training: the class prior decides")
    for item in evidence:
        side = predicted if item.weight >= 0 else runner_up
        print(f"  {item.weight:+7.2f}  {item.token}  (for {side})")


# -- fit / predict ---------------------------------------------------------------


def _fit(argv: list[str]) -> int:
    parser = ArgumentParser(prog="aviary classify fit",
                            description="Train on TRAIN and save the model as JSON.")
    parser.add_argument("train", metavar="TRAIN", help="training file, 'LABEL text...' per line")
    parser.add_argument("--model", required=True, metavar="FILE",
                        help="where to write the model (JSON)")
    parser.add_argument("--force", action="store_true", help="replace an existing model file")
    _add_model_options(parser)
    options = parser.parse_args(argv)
    from aviary.classify.model_file import save_model

    target = Path(options.model)
    _check_output(target, options.force, [options.train])
    train = read_labeled(options.train)
    _require_two_classes(train, options.train)
    model = _fitted(_model_from(options), train, options)
    try:
        save_model(model, target)
    except OSError as error:
        raise UsageError(f"classify: cannot write {target}: {error.strerror}") from None
    print(f"wrote {target}: {len(model.classes_)} classes, {len(model.vocabulary_)} features "
          f"from {int(model.class_count_.sum())} texts, {model.event_model}, "
          f"alpha {model.alpha:g}")
    return 0


def _predict(argv: list[str]) -> int:
    parser = ArgumentParser(
        prog="aviary classify predict",
        description="Print the predicted label of each non-blank line of FILE.",
    )
    parser.add_argument("--model", required=True, metavar="FILE", help="a model saved by fit")
    parser.add_argument("file", metavar="FILE", help="texts, one per line")
    parser.add_argument("--labeled", action="store_true",
                        help="FILE has 'LABEL text...' lines: also print the accuracy")
    options = parser.parse_args(argv)
    from aviary.classify.model_file import load_model

    try:
        if Path(options.model).exists() and not Path(options.model).is_file():
            raise UsageError(f"classify: --model {options.model} is not a regular file")
        model = load_model(options.model)
    except FileNotFoundError:
        raise UsageError(f"classify: no such model file: {options.model}") from None
    except OSError as error:
        raise UsageError(f"classify: cannot read {options.model}: {error.strerror}") from None
    except ValueError as error:
        raise UsageError(f"classify: {options.model} is not a usable model: {error}") from None
    known = {str(c) for c in model.classes_}
    shown = correct = 0
    rows: Iterator[tuple[str, str]] = (iter_labeled(options.file) if options.labeled else
                                       (("", text) for text in iter_lines(options.file)))
    while batch := list(itertools.islice(rows, PREDICT_BATCH)):
        labels = [label for label, _ in batch]
        unseen = sorted(set(labels) - known) if options.labeled else []
        if unseen:
            raise UsageError(f"classify: {options.file} has labels the model does not know: "
                             f"{', '.join(map(repr, unseen[:5]))}")
        predicted = model.predict([text for _, text in batch])
        sys.stdout.write("".join(f"{label}\n" for label in predicted))
        sys.stdout.flush()
        shown += len(batch)
        correct += sum(p == t for p, t in zip(predicted, labels, strict=True))
    if options.labeled:
        print(f"Classification accuracy = {100 * correct / shown:.2f}%", file=sys.stderr)
    return 0


PREDICT_BATCH = 2000  # lines read, predicted and printed at a time: memory stays bounded


# -- files -------------------------------------------------------------------------


def _check_output(target: Path, force: bool, inputs: list[str]) -> None:
    """Never an input; otherwise the one rule of `aviary.outputs` (regular files only)."""
    for given in inputs:
        if Path(given).exists() and target.exists() and target.samefile(given):
            raise UsageError(f"classify: refusing to write over the input file {given}")
    try:
        check_output(target, replace=force)
    except UsageError as error:
        raise UsageError(f"classify: {error}") from None


def _write_lines(target: Path, lines: list[str]) -> None:
    try:
        write_text_atomically(target, "".join(f"{line}\n" for line in lines))
    except UsageError as error:
        raise UsageError(f"classify: {error}") from None
