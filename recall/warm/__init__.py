"""The warm engine: a long-lived process per project that answers ``tether inject`` and
``tether hook EVENT`` with its modules already loaded, so an agent's hooks skip the
interpreter's imports (see :mod:`recall.warm.client` for the client's side and
:mod:`recall.warm.server` for the engine's)."""
