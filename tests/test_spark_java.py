"""textdp.spark's Java check: Spark's JVM is named as a requirement, with a clear error where
it is missing or too old (pyspark's own error names neither). Fake ``java`` scripts stand in
for real installs, so these run without Java or Spark."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from textdp.spark import MIN_JAVA, java_version, require_java


def fake_java(folder: Path, banner: str) -> Path:
    """A ``bin/java`` under ``folder`` that prints ``banner`` on stderr as ``java -version``."""
    java = folder / "bin" / "java"
    java.parent.mkdir(parents=True)
    java.write_text(f"#!/bin/sh\necho '{banner}' >&2\n")
    java.chmod(java.stat().st_mode | stat.S_IXUSR)
    return java


@pytest.mark.parametrize(("banner", "major"), [
    ('openjdk version "17.0.15" 2025-04-15', 17),
    ('openjdk version "21" 2023-09-19', 21),
    ('java version "1.8.0_392"', 8),
    ('openjdk version "11.0.22" 2024-01-16', 11),
])
def test_java_version_reads_the_major_version(tmp_path, monkeypatch, banner, major):
    fake_java(tmp_path, banner)
    monkeypatch.setenv("JAVA_HOME", str(tmp_path))
    assert java_version() == major


def test_an_old_java_is_refused_naming_both_versions(tmp_path, monkeypatch):
    fake_java(tmp_path, 'openjdk version "11.0.22" 2024-01-16')
    monkeypatch.setenv("JAVA_HOME", str(tmp_path))
    with pytest.raises(RuntimeError, match=rf"Java {MIN_JAVA} or newer, found Java 11"):
        require_java()


def test_no_java_is_refused_saying_what_to_install(tmp_path, monkeypatch):
    monkeypatch.delenv("JAVA_HOME", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))  # an empty folder: no java anywhere
    with pytest.raises(RuntimeError, match=r"none was found.*JAVA_HOME"):
        require_java()


def test_a_recent_java_passes(tmp_path, monkeypatch):
    fake_java(tmp_path, 'openjdk version "17.0.15" 2025-04-15')
    monkeypatch.setenv("JAVA_HOME", str(tmp_path))
    monkeypatch.setenv("PATH", os.defpath)
    assert require_java() == 17
