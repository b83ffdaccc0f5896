"""The classifier's default settings, in one place.

Chosen by 5-fold cross-validation on the course training file only (never by
test accuracy): `benchmarks/classify_select_tokenizer.py` tries 256
combinations (event model, smoothing, n-grams, word pairs, binary counts,
hashtags) and the highest mean CV accuracy wins: multinomial, alpha = 0.03,
with the `Tokenizer` defaults (words, word pairs, character 3-5-grams,
`#tag` as well as `tag`, each feature once per text): 84.14% (s.e. 0.19%).
The tokenizer's defaults live on `Tokenizer` itself; the README has the table.
"""

from __future__ import annotations

from typing import Literal

EventModel = Literal["multinomial", "bernoulli"]

DEFAULT_EVENT_MODEL: EventModel = "multinomial"
DEFAULT_ALPHA = 0.03
