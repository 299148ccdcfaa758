"""The word-list reader (textdp.detect.wordlists): comments, sections, several words a line."""

from __future__ import annotations

from textdp.detect.register import DATA_DIR, vocabulary
from textdp.detect.wordlists import word_lines, word_sections


def test_sections_comments_and_words(tmp_path):
    path = tmp_path / "list.txt"
    path.write_text("# a comment\nAlpha  # trailing comment\n\n[one]\nb c\nD\n[two]\n",
                    encoding="utf-8")
    assert word_lines(path) == ["Alpha", "[one]", "b c", "D", "[two]"]
    assert word_sections(path) == {None: frozenset({"alpha"}), "one": frozenset({"b", "c", "d"}),
                                   "two": frozenset()}


def test_the_register_vocabularies_are_read_by_it():
    sections = word_sections(DATA_DIR / "register_address.txt")
    assert vocabulary("street") == sections["street"] and "lane" in vocabulary("street")
    roles = word_sections(DATA_DIR / "register_roles.txt")
    assert vocabulary("roles") == frozenset().union(*roles.values())  # kinship included
