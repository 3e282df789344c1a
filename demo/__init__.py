"""The `make demo` walkthrough: a sample repository and the real CLI run against it."""
