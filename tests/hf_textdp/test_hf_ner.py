"""HFNERDetector plumbing with a tiny random token-classification model (offline).

The weights are random, so the model's outputs are forced: either the classifier bias makes
every word piece ``I-PER``, or the forward pass is patched to tag chosen word pieces ``B-PER``.
What is tested is the path from the pipeline's character spans to spaCy token spans.
"""

from __future__ import annotations

import pickle
import types

import pytest
import torch

transformers = pytest.importorskip("transformers")

from textdp.defaults import transformer_path  # noqa: E402
from textdp.detect import create_detector  # noqa: E402
from textdp.detect.hf_ner import HFNERDetector  # noqa: E402
from textdp.privatizer import Privatizer  # noqa: E402

LABELS = {0: "O", 1: "B-PER", 2: "I-PER"}
TEXT = "Angela Schwarzenegger met the press."


@pytest.fixture(scope="module")
def tokenizer():
    return transformers.AutoTokenizer.from_pretrained(transformer_path())


def _tiny_model(tokenizer, *, all_person: bool = False):
    torch.manual_seed(0)
    config = transformers.BertConfig(
        vocab_size=tokenizer.vocab_size, hidden_size=16, num_hidden_layers=1,
        num_attention_heads=2, intermediate_size=32, max_position_embeddings=512,
        id2label=LABELS, label2id={v: k for k, v in LABELS.items()})
    model = transformers.BertForTokenClassification(config).eval()
    if all_person:
        with torch.no_grad():
            model.classifier.weight.zero_()
            model.classifier.bias.copy_(torch.tensor([0.0, 0.0, 10.0]))
    return model


def _force_pieces(model, piece_ids: list[int]):
    """Patch ``forward`` so exactly the word pieces in ``piece_ids`` are tagged B-PER."""
    original = model.forward
    wanted = torch.tensor(piece_ids)

    def forward(self, input_ids=None, attention_mask=None, **kwargs):
        out = original(input_ids=input_ids, attention_mask=attention_mask, **kwargs)
        logits = torch.zeros(*input_ids.shape, 3)
        logits[..., 0] = 10.0
        hit = torch.isin(input_ids, wanted)
        logits[hit] = torch.tensor([0.0, 10.0, 0.0])
        out.logits = logits
        return out

    model.forward = types.MethodType(forward, model)
    return model


@pytest.fixture(scope="module")
def inner_piece(tokenizer):
    """A word piece from the middle of "Schwarzenegger" (a span that covers part of a token)."""
    pieces = tokenizer.tokenize("Schwarzenegger")
    assert len(pieces) >= 2
    return tokenizer.convert_tokens_to_ids(pieces[1])


def test_partial_word_piece_expands_to_the_whole_spacy_token(nlp, tokenizer, inner_piece):
    detector = HFNERDetector(_force_pieces(_tiny_model(tokenizer), [inner_piece]),
                             tokenizer=tokenizer)
    doc = nlp.make_doc(TEXT)
    assert detector([doc]) == [[(1, 2, "PERSON")]]  # "Schwarzenegger", whole, B-PER → PERSON
    assert doc[1].text == "Schwarzenegger"


def test_every_piece_person_covers_every_token(nlp, tokenizer):
    detector = HFNERDetector(_tiny_model(tokenizer, all_person=True), tokenizer=tokenizer)
    docs = [nlp.make_doc(TEXT), nlp.make_doc(""), nlp.make_doc("Bob.")]
    spans = detector(docs)
    assert spans[1] == []  # empty docs are skipped
    for doc, doc_spans in zip(docs, spans):
        covered = {k for start, end, label in doc_spans for k in range(start, end)}
        assert covered == set(range(len(doc)))
        assert {label for *_, label in doc_spans} <= {"PERSON"}


def test_long_text_is_windowed_not_truncated(nlp, tokenizer, inner_piece):
    detector = HFNERDetector(_force_pieces(_tiny_model(tokenizer), [inner_piece]),
                             tokenizer=tokenizer, stride=32)
    doc = nlp.make_doc("the " * 700 + TEXT)  # the name sits after word piece 700
    assert detector([doc]) == [[(701, 702, "PERSON")]]


def test_privatizer_replaces_what_the_hf_detector_marks(tokenizer, inner_piece):
    detector = HFNERDetector(_force_pieces(_tiny_model(tokenizer), [inner_piece]),
                             tokenizer=tokenizer)
    out = Privatizer(detector=detector, seed=0).privatize([TEXT])[0]
    assert out.report.tokens_replaced == 1
    words = out.text.split()
    assert words[0] == "Angela" and words[1] != "Schwarzenegger" and words[2:] == TEXT.split()[2:]


def test_hf_prefix_selects_the_detector_from_a_folder(tmp_path, nlp, tokenizer):
    _tiny_model(tokenizer, all_person=True).save_pretrained(tmp_path)
    tokenizer.save_pretrained(tmp_path)
    detector = create_detector(f"hf:{tmp_path}")
    assert isinstance(detector, HFNERDetector)
    assert detector([nlp.make_doc("Bob met Al.")]) == [[(0, 4, "PERSON")]]
    # Picklable as configuration only (the pipeline reloads in the receiving process).
    blob = pickle.dumps(detector)
    assert len(blob) < 1_000
    assert pickle.loads(blob).model == str(tmp_path)
    out = Privatizer(detector=f"hf:{tmp_path}", seed=0).privatize(["Bob met Al."])[0]
    assert out.report.tokens_replaced == 3  # every word was marked PERSON


def test_bad_arguments():
    with pytest.raises(ValueError, match="needs a model"):
        HFNERDetector("")
    with pytest.raises(ValueError, match="stride"):
        HFNERDetector("x", stride=-1)
