"""The stages :class:`~textdp.privatizer.Privatizer` wires, one module each (docs/architecture.md).

In the order a batch goes through them:

- :mod:`~textdp.pipeline.chunking` cuts long texts into chunks at sentence or space bounds;
- :mod:`~textdp.pipeline.batching` groups texts and chunks into vectorised batches and joins
  their reports;
- :mod:`~textdp.pipeline.selection` decides which tokens are targets (one path for the core,
  the spaCy component and ``textdp detect``);
- :mod:`~textdp.pipeline.contexts` builds the contexts a contextual encoder reads, with the
  batch's targets masked;
- :mod:`~textdp.pipeline.representation` gives each target the vector its draw starts from
  (static table row or contextual hidden state);
- :mod:`~textdp.pipeline.candidates` holds the public candidates a draw decodes to;
- :mod:`~textdp.pipeline.draw_plan` groups a batch's targets into draws (consistency) and
  gives each its candidate set;
- :mod:`~textdp.pipeline.surrogates` writes what needs no draw (tags, PII surrogates);
- :mod:`~textdp.pipeline.substitution` runs the steps: plan, re-use, surrogates, budget,
  draw, surface form, counts.

Each stage is importable on its own; the privatizer orchestrates them and holds no stage logic.
"""
