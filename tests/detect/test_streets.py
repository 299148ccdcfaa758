"""Street addresses (textdp.detect.streets): the forms taken, what is left, the surrogate."""

from __future__ import annotations

import numpy as np
import pytest

from textdp.detect.pii import find_pii, shape_of, surrogate
from textdp.detect.streets import find_streets, layout, street_names, street_types


def taken(text: str) -> list[str]:
    return [text[a:b] for a, b in find_streets(text)]


@pytest.mark.parametrize("text, street", [
    ("She lives at 19 Mill Lane, Bristol BS1 4DJ.", "19 Mill Lane"),
    ("Ship to 5650 Ellis Burgs Apt. 289, Rachelhaven", "5650 Ellis Burgs Apt. 289"),
    ("Address: 221B Baker Street, London", "221B Baker Street"),
    ("Meet at 1600 Pennsylvania Avenue NW tomorrow", "1600 Pennsylvania Avenue NW"),
    ("Flat 4, 19 Mill Lane", "Flat 4, 19 Mill Lane"),
    ("123 W 45th St", "123 W 45th St"),
    ("She lives at 1900 Main Street.", "1900 Main Street"),      # a year-like number, a cue
    ("3 rue de la Paix, Paris", "3 rue de la Paix"),
    ("Via Roma 12, Milano", "Via Roma 12"),
    ("Residenza: Via dei Serpenti 34, 00184 Roma", "Via dei Serpenti 34"),  # dei, degli, delle
    ("Canale Faggiani, 240", "Canale Faggiani, 240"),
    ("aleja Żeromskiego 24", "aleja Żeromskiego 24"),
    ("Jost-Klingelhöfer-Straße 93-15", "Jost-Klingelhöfer-Straße 93-15"),
    ("Björkgatan 561", "Björkgatan 561"),
    ("бул. Минина, д. 7/2", "бул. Минина, д. 7/2"),
    ("551 小林 Street", "551 小林 Street"),
    ("Studio 9\nPhillips Fort", "Studio 9\nPhillips Fort"),
    ("She lives at 049\nChokshi Path.", "049\nChokshi Path"),  # the number alone, after "at"
    ("Send to:\n12/4\nGreen Park", "12/4\nGreen Park"),
    ("75/93\nSandal Zila", "75/93\nSandal Zila"),
    ("Level 2, 99 Christina Interchange", "Level 2, 99 Christina Interchange"),  # its floor
    ("She lives at Unit 05 076 Maureen Line.", "Unit 05 076 Maureen Line"),
    # without a number, right after an address cue; -ring and -hof after one
    ("She lives at rue de Maillard with her cat.", "rue de Maillard"),
    ("Send to:\nAlameda Maria Liz Fogaça\nThanks", "Alameda Maria Liz Fogaça"),
    ("lives at 29, avenue Voisin", "29, avenue Voisin"),
    ("She lives at Simonhof 942 now", "Simonhof 942"),
    # a name that opens with a date's day or an ordinal
    ("живёт: бул. 8 Марта, д. 48 к. 9", "бул. 8 Марта, д. 48 к. 9"),
    ("Avenida 5 de Mayo 120, Centro", "Avenida 5 de Mayo 120"),
    # U.S. military mail before its APO, FPO or DPO line
    ("PSC 8792, Box 2432\nAPO AP 68084", "PSC 8792, Box 2432"),
    ("Unit 5069 Box 9205\nDPO AA 46758", "Unit 5069 Box 9205"), ("USNS Ray\nFPO AE", "USNS Ray"),
    ("Praia da Mota, 18", "Praia da Mota, 18"),
    # Japanese: the town, chōme, ban and gō, the building and room
    ("兵庫県多摩市南赤田3丁目4番11号 一ツ橋ハイツ134",
     "兵庫県多摩市南赤田3丁目4番11号 一ツ橋ハイツ134"),
    ("私は東京都港区六本木6-10-1に住んでいます", "東京都港区六本木6-10-1"),
    # a building and its floor, a space between only after a building word
    ("〒160-0022 東京都新宿区新宿3-14-1 グランドビル 5F", "東京都新宿区新宿3-14-1 グランドビル 5F"),
    ("東京都港区六本木6-10-1 森タワー 12階", "東京都港区六本木6-10-1 森タワー 12階"),
    ("東京都新宿区新宿3-14-1 電話 03-1234-5678", "東京都新宿区新宿3-14-1"),
    ("〒100-0005 東京都千代田区丸の内１丁目９−１", "東京都千代田区丸の内１丁目９−１"),
    # Chinese: the road and its number (not the words before it), a block
    ("我住在北京市朝阳区建国路88号3号楼2单元501室。", "北京市朝阳区建国路88号3号楼2单元501室"),
    ("甘肃省海门市朝阳马路U座 123456", "甘肃省海门市朝阳马路U座"),
    # Korean road names, underground, numbered ga streets, the town in brackets
    ("인천광역시 북구 석촌호수163거리 957 (예준유읍)", "석촌호수163거리 957 (예준유읍)"),
    ("제주특별자치도 부천시 가락48길 지하594", "가락48길 지하594"),
    ("서울 종로3가 12", "종로3가 12"),
    # a road ending in 가 after its district
    ("울산광역시 동대문구 백제고분가 지하818 (수민이마을)", "백제고분가 지하818 (수민이마을)"),
    # after a word that says an address follows, a number and a name whatever its last word
    ("She lives at 32 Robin Lees with her cat.", "32 Robin Lees"),
    ("She lives at Suite 963 2 Smith Part with her cat.", "Suite 963 2 Smith Part"),
    ("Address: H.No. 124, Mangat", "H.No. 124, Mangat"),
    ("Send to:\n79104 Hardy Flat\nLake Melanie", "79104 Hardy Flat"),
    ("She lives at 50\nSrivastava with her cat.", "50\nSrivastava"),
    # Brazil's área, Spain's C/ and C. de, a Japanese building with が
    ("Área de Ferreira, 54", "Área de Ferreira, 54"), ("C/ Mayor 5, Madrid", "C/ Mayor 5"),
    ("C. de Evita Castells 438", "C. de Evita Castells 438"),
    # an avenue written short before its name (Spain, Mexico, Brazil)
    ("Domicilio: Av. Insurgentes Sur 1602, Col. Roma", "Av. Insurgentes Sur 1602"),
    ("Av Paulista 1000, São Paulo", "Av Paulista 1000"), ("Avda. Reforma 222", "Avda. Reforma 222"),
    ("百村40丁目23番1号 松が谷ハイツ399", "百村40丁目23番1号 松が谷ハイツ399"),
    # a house number first, a postcode and its town after
    ("She lives at 3 rue de la Paix 75002 Paris", "3 rue de la Paix"),
    ("Address: 14 Rua das Flores, 1200-195 Lisboa", "14 Rua das Flores"),
    # a name, a type after it and the number, after a word that says an address follows
    ("Adresse: Schönhauser Allee 12, 10435 Berlin", "Schönhauser Allee 12"),
])
def test_street_addresses_of_many_forms(text, street):
    assert taken(text) == [street]


@pytest.mark.parametrize("text", [
    "In 2019 Apple Park opened.",               # a year after a preposition
    "the 1979 Democracy Wall movement",         # a year without an address cue
    "I have 3 green apples.", "the 5 Star Hotel",
    "Dunvant 21 Ebbw Vale 10",                  # a score: a number after the "street"
    "Worcestershire 238, K. Spiring 130 not out",  # a surname ending like a street type
    "31 : 12 Cue The Lonely Island",            # a capitalised article in the name
    "rue de Maillard",                          # no house number and no address cue
    "I sent it via Paris", "The rue de la Paix is nice",
    "Meet Simonhof 942 times",                  # -hof without an address cue
    "Boldly go, USS Enterprise!", "Storage Unit 12 Box 3 is full",  # no APO/FPO/DPO line
    "She moved to Vila Flor last year",          # a town named like a street (a PLACE)
    "Port Vale 2 Oxford 0",                      # a score after a type's word ("Vale")
    "第3回会議は2024年5月10日です。電話は03-1234-5678",  # a date, a phone number
    "1-2-3 の順番で", "价格是100号", "他在3号房间",  # numbers without a place or road
    "사과가 3개 있어요",                          # 가 ending a word, not after a number
    "Subject: Invoice 4411\n\nHi River,",        # a number ending a line of other words
    "see you at 3 PM", "meet at 5 Guys Burger",  # "at" alone says no address
    "She moved to 12 Bristol", "I moved to 2 Fort Worth",  # a town after the number
    "Address: 12\nThanks", "C. Ronaldo 7 scored",  # a sign-off; an initial, not calle
    "서울시 친구가 3명",                           # 가 a subject particle after a city
    "I sang Penny Lane 2 times",                   # a name and type before a number: a count
])
def test_other_phrases_are_not_streets(text):
    assert taken(text) == []


def test_the_public_lists_load():
    types = street_types()
    assert {"after", "before", "glued"} <= set(types)
    assert {"lane", "street", "burgs"} <= types["after"] and "via" in types["before"]
    assert "straße" in types["glued"] and "ring" not in types["glued"]
    assert {"길", "로", "거리"} <= types["glued"] and {"praia", "rua"} <= types["before"]
    names = street_names()
    assert len(names) == len(set(names)) >= 50 and "Main" in names


def test_the_surrogate_keeps_the_layout_and_draws_the_name_and_number():
    rng = np.random.default_rng(0)
    for value in ("19 Mill Lane", "5650 Ellis Burgs Apt. 289", "Via Roma 12", "Björkgatan 561",
                  "Jost-Klingelhöfer-Straße 93-15", "Flat 4, 19 MILL LANE"):
        shape = shape_of("STREET_ADDRESS", value)
        assert shape.layout == layout(value)
        outs = {surrogate("STREET_ADDRESS", shape, rng) for _ in range(40)}
        assert value not in outs and len(outs) > 20
        for out in outs:
            assert layout(out) == shape.layout or out.upper() == out  # same layout again
            assert not any(w in out for w in ("Mill", "Ellis", "Roma", "Björk", "Klingel")
                           if w.lower() not in {n.lower() for n in street_names()})
    # the street type, the unit word and the case of the name are kept
    out = surrogate("STREET_ADDRESS", shape_of("STREET_ADDRESS", "5650 Ellis Burgs Apt. 289"),
                    np.random.default_rng(1))
    assert out.split()[2:4] == ["Burgs", "Apt."] and out.split()[1] in street_names()
    upper = surrogate("STREET_ADDRESS", shape_of("STREET_ADDRESS", "19 MILL LANE"),
                      np.random.default_rng(2))
    assert upper.isupper() and upper.endswith(" LANE")


def test_a_name_in_japanese_chinese_or_korean_script_becomes_one_of_that_script():
    from textdp.detect.streets import script_street_names

    pools = script_street_names()
    assert set(pools) == {"ja", "zh", "ko"} and all(len(p) >= 12 for p in pools.values())
    rng = np.random.default_rng(0)
    for value, script, marks in (("和歌山県八王子市戸島28丁目8番7号", "ja", ("丁目", "番", "号")),
                                 ("北京市朝阳区建国路88号", "zh", ("路", "号")),
                                 ("가락48길 지하594", "ko", ("길 지하",))):
        outs = {surrogate("STREET_ADDRESS", shape_of("STREET_ADDRESS", value), rng)
                for _ in range(30)}
        assert value not in outs and len(outs) > 10
        for out in outs:
            assert any(out.startswith(n) for n in pools[script])  # a public name first
            assert all(m in out for m in marks)  # the number's marks as written
            assert not any(w in out for w in ("戸島", "建国", "가락"))


def test_a_street_is_one_target_of_the_quasi_preset():
    from textdp import Privatizer

    text = "Pt lives at 19 Mill Lane, Bristol BS1 4DJ."
    assert [m.label for m in find_pii(text, ["STREET_ADDRESS", "POSTCODE"])] == [
        "STREET_ADDRESS", "POSTCODE"]
    out = Privatizer(targets="quasi", seed=0).privatize([text])[0].text
    assert "19 Mill" not in out and " Lane," in out and "BS1 4DJ" not in out
