"""Shared by the whole suite: pytest puts this folder on sys.path, so test files in the
game folders can import its helper modules (`course_clock`)."""

from __future__ import annotations

import os

# Course commands run by tests start no warm engine server of their own (it would outlive
# the test); tests of the warm server turn this off in a private AVIARY_WARM_DIR.
os.environ["AVIARY_NO_WARM"] = "1"
