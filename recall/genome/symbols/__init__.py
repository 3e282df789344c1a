"""The symbol index: each source file's definitions, their line ranges and body hashes."""
