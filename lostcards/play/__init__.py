"""`lostcards play`: a person takes a seat against bots (session, screen, typed moves)."""
