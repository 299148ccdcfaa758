"""The texts of the every-mention rule and the review signal (issue 33), shared by their tests
through every front end (core, spaCy, datasets, Spark, CLI)."""

# (text, the names that must not survive anywhere in the output, case-folded)
EVERY_MENTION = [
    ("RT @chiamaka_eze: great talk today by Chiamaka Eze at the summit", ("chiamaka", "eze")),
    ("Thandiwe Nkosi at the summit. follow @tnkosi", ("thandiwe", "nkosi", "tnkosi")),
    ("<wanjiru_mwangi> hi all\n<bob> hey Wanjiru\n<wanjiru_mwangi> ok", ("wanjiru", "mwangi")),
    ("amal: hi\nbob: is amal's bag here?\namal: no it is not", ("amal",)),
]
# (The support note, "Summer Rain called … summer.rain@…", is replaced at every
# mention since the register stage: tests/detect/test_register.py.)
# A name the user allowed as a phrase, mentioned alone elsewhere: targeted there only.
PARTIAL = "Hunter Price paid the bill. Later Hunter left with Ann Lee."
# A name the tagger scores just above its threshold in a note in capitals ("OKAFOR": 0.022
# against 0.015). (The earlier example, "Ask" opening "Ask David|Kowalski now", is no longer
# read as a name: a sentence's first common word needs the stricter threshold.)
NEAR = "PAGE TO 4521: RM 12 OKAFOR BP 88/50, HR 120. PLS CALL BACK."
PLAIN = "Call Anna Schmidt today."
