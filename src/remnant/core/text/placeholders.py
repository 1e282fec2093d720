"""The privacy layer's placeholders (``[PHONE_1]``, ``[EMAIL_2]``): the one shape every reader of
stored text uses to tell a placeholder from the words and values around it."""

from __future__ import annotations

import re

#: a placeholder the privacy layer writes in place of a value; its digits are no value
PLACEHOLDER = re.compile(r"\[[A-Z][A-Z_]*_\d+\]")
