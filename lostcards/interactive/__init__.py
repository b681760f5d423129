"""`lostcards play`'s insides: a person takes a seat against bots (session, screen, typed moves).

(Not `lostcards.play`: that name is the batch entry point, `lostcards.play(rules, ...)`.)
"""
