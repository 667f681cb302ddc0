"""The regression snapshot of issue 13: every case's arrays from before the engine's refactor."""
