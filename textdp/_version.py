"""The package version, in a module of its own so any module can read it without importing the
package root (which imports the Privatizer)."""

__version__ = "0.2.0"
