"""The words an on/off ``TETHER_*`` variable takes, in a module that imports nothing: the warm
engine's client reads ``TETHER_WARM`` before a hook imports anything else
(:mod:`recall.warm.protocol`), and :mod:`recall.env_values` reads every switch by them."""

OFF_WORDS = frozenset({"0", "false", "no", "off"})
ON_WORDS = frozenset({"1", "true", "yes", "on"})
