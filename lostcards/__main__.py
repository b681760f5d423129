from lostcards.cli import run

run()
