"""The classifier's default settings, in one place.

Chosen by 5-fold cross-validation on the course training file only (never by
test accuracy): `benchmarks/classify_select_tokenizer.py` tries 256
combinations (event model, smoothing, n-grams, word pairs, binary counts,
hashtags) and the highest mean CV accuracy wins: multinomial, alpha = 0.03,
with the `Tokenizer` defaults (words, word pairs, character 3-5-grams,
`#tag` as well as `tag`, each feature once per text): 84.14% (s.e. 0.19%).
The tokenizer's defaults live on `Tokenizer` itself; the README has the table.

The command line goes one step further and chooses per training file, by
the same 5-fold CV (`--event-model auto --alpha auto`, its defaults): alpha
among `ALPHA_CHOICES`, and the complement event model instead of the
multinomial one when it cross-validates better by more than one standard
error. The best settings for two coasts are not those for twelve unbalanced
cities. On the course file the choice is multinomial, alpha 0.03, as above
(complement's best is one tweet in 19,574 higher: far inside the margin).
"""

from __future__ import annotations

from typing import Literal

EventModel = Literal["multinomial", "bernoulli", "complement"]

DEFAULT_EVENT_MODEL: EventModel = "multinomial"
DEFAULT_ALPHA = 0.03
ALPHA_CHOICES = (0.01, 0.03, 0.1, 0.3, 1.0)
AUTO_EVENT_MODELS: tuple[EventModel, ...] = ("multinomial", "complement")
CHOICE_FOLDS = 5
