"""The table in a browser (``lostcards serve``): play any bot, review a round's costliest moves, try a rule change."""
