"""Tiny seeded models the tests build instead of loading a real one."""

from __future__ import annotations

from pathlib import Path


def save_tiny_bert(folder: Path, words: list[str]) -> str:
    """A random one-layer BERT (seeded, 16-d) whose WordPiece vocabulary is BERT's special
    tokens and ``words``, saved to ``folder``: a contextual encoder small enough for tests,
    in which a changed word changes the model's input."""
    import torch
    from transformers import BertConfig, BertModel, BertTokenizer

    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *words]
    torch.manual_seed(0)
    BertModel(BertConfig(vocab_size=len(vocab), hidden_size=16, num_hidden_layers=1,
                         num_attention_heads=2, intermediate_size=32,
                         max_position_embeddings=128)).save_pretrained(folder)
    BertTokenizer(vocab={w: i for i, w in enumerate(vocab)}).save_pretrained(folder)
    return str(folder)
