"""The deterministic verifier: reply scoring (`scoring`) and the report built from scores (`metrics`)."""
