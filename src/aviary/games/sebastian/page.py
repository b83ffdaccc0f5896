"""What Sebastian's browser page asks of the rules and the exact table (JSON in, JSON out).

The page keeps the game (dice, roll number, scorecard, the log it replays);
each of `ACTIONS` answers from the request alone: `rules` names the
categories, `roll` throws the dice to reroll, `advice` gives the expected
final score of every choice, `score` fills a category by the course's rules.
A bad request raises ValueError.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from aviary.games.sebastian.rules import (
    BONUS_POINTS,
    BONUS_THRESHOLD,
    CATEGORIES,
    NUMBERS,
    possible_upper_totals,
    score,
    upper_total,
)

PAGE = Path(__file__).with_name("page.html")
_rng = random.SystemRandom()


def warmup() -> None:
    """Load (or solve once, about 12 s, then cached on disk) the exact table."""
    from aviary.games.sebastian.player import OptimalPlayer

    OptimalPlayer()


def _dice(body: dict[str, Any]) -> list[int]:
    dice = body.get("dice")
    if (not isinstance(dice, list) or len(dice) != 5
            or not all(isinstance(d, int) and not isinstance(d, bool) and 1 <= d <= 6
                       for d in dice)):
        raise ValueError("dice must be a list of five values from 1 to 6")
    return dice


def _scorecard(body: dict[str, Any]) -> dict[str, int]:
    card = body.get("scorecard", {})
    if not isinstance(card, dict):
        raise ValueError("scorecard must map category names to points")
    for name, points in card.items():
        if name not in CATEGORIES:
            raise ValueError(f"unknown category {name!r}; one of: {', '.join(CATEGORIES)}")
        if not isinstance(points, int) or isinstance(points, bool) or points < 0:
            raise ValueError(f"points of {name} must be a whole number >= 0")
    filled_numbers = {name for name in card if name in NUMBERS}
    if upper_total(card) not in possible_upper_totals(filled_numbers):
        raise ValueError("the number categories' points cannot add up that way")
    return dict(card)


def _total(card: dict[str, int]) -> tuple[int, int]:
    """(total, bonus) as the course's scorecard counts them."""
    bonus = BONUS_POINTS if (all(name in card for name in NUMBERS)
                             and upper_total(card) >= BONUS_THRESHOLD) else 0
    return sum(card.values()) + bonus, bonus


# what each category scores, for the page's scorecard (`rules.score` is the truth)
SCORES = {
    **{name: f"the sum of the {face}s" for name, face in NUMBERS.items()},
    "company": "40 for a straight of five (1-5 or 2-6)",
    "prattle": "30 for a straight of four",
    "squadron": "25 for a pair and a triple",
    "triplex": "the sum of all dice, with three of a kind",
    "quadrupla": "the sum of all dice, with four of a kind",
    "quintuplicatam": "50 for five of a kind",
    "pandemonium": "the sum of all dice",
}


def _rules(body: dict[str, Any]) -> dict[str, Any]:
    return {"categories": list(CATEGORIES), "numbers": list(NUMBERS),
            "scores": [SCORES[name] for name in CATEGORIES],
            "bonus_threshold": BONUS_THRESHOLD, "bonus_points": BONUS_POINTS}


def _roll(body: dict[str, Any]) -> dict[str, Any]:
    reroll = body.get("reroll")
    if "dice" not in body or body["dice"] is None:
        return {"dice": [_rng.randint(1, 6) for _ in range(5)]}
    dice = _dice(body)
    if (not isinstance(reroll, list)
            or not all(isinstance(i, int) and 0 <= i < 5 for i in reroll)
            or len(set(reroll)) != len(reroll)):
        raise ValueError("reroll must list distinct dice positions 0-4")
    return {"dice": [_rng.randint(1, 6) if i in reroll else d for i, d in enumerate(dice)]}


def _advice(body: dict[str, Any]) -> dict[str, Any]:
    from aviary.games.sebastian.player import OptimalPlayer, State, reroll_indices

    dice, card = _dice(body), _scorecard(body)
    roll = body.get("roll")
    if roll not in (1, 2, 3):
        raise ValueError("roll must be 1, 2 or 3")
    if len(card) == len(CATEGORIES):
        raise ValueError("every category is filled: the game is over")
    total, bonus = _total(card)
    base = total - BONUS_POINTS if bonus else total  # the table counts a paid bonus again
    player = OptimalPlayer()
    state = State.from_filled(card, upper_total(card))
    answer: dict[str, Any] = {"before": base + player.expected_from(state), "total": total}
    if roll == 3:
        answer["categories"] = [
            {"category": o.category, "points": o.points, "expected": base + o.expected}
            for o in player.category_options(dice, state)]
    else:
        answer["keeps"] = [
            {"keep": list(o.keep), "reroll": reroll_indices(dice, o.keep),
             "expected": base + o.expected}
            for o in player.keep_options(dice, roll, state)]
    return answer


def _score(body: dict[str, Any]) -> dict[str, Any]:
    dice, card = _dice(body), _scorecard(body)
    category = body.get("category")
    if category not in CATEGORIES:
        raise ValueError(f"unknown category {category!r}; one of: {', '.join(CATEGORIES)}")
    if category in card:
        raise ValueError(f"{category} is already filled")
    card[category] = score(dice, category)
    total, bonus = _total(card)
    return {"scorecard": card, "points": card[category], "bonus": bonus, "total": total,
            "over": len(card) == len(CATEGORIES)}


ACTIONS = {"rules": _rules, "roll": _roll, "advice": _advice, "score": _score}
