"""Pattern syntax shared by the CLI (which must start without numpy) and the ranked-variant engine."""

WILDCARDS = frozenset({"*", "_"})  # pattern tokens that match any one corpus token (variants.py)
MAX_EDITS = 4  # insertions (and deletions) per match: each insertion multiplies the branching by the
# number of distinct next tokens, so more is refused rather than run
