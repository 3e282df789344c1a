"""How the editor's refusal of text shaped like a credential says to write it anyway: the
editor's commands have no argument for it (a secret should not be one click or one save away),
the CLI has a flag."""

from __future__ import annotations

from recall.secrets_scan import OVERRIDE_FLAG

SECRET_OVERRIDE = (
    f"if it is not a secret, write the memory with `tether remember {OVERRIDE_FLAG}` in a terminal"
)
"""How the editor's refusals of a credential end (a command's write, a draft's opening and
save), where the CLI's and an import's name their own flag and key."""
