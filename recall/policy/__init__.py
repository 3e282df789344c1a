"""What reaches a person or an agent, and when: the hint policy, the injection, whose
memories may be injected, and the counts of what was shown, acted on and in which turn."""
