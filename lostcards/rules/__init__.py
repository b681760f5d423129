"""The vocabulary of the game, plain Python: cards, rulesets, random streams, scoring, how a round ends."""
