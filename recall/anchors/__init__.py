"""Code anchors: memories bound to symbols (``path::name``), their states as the code moves,
the body hashes a write records, guards, and ``tether check`` of a change against them."""
