"""Shared machinery: the claims ledger, paper registry, runtime, executors, report, CLI and web."""
