"""The identifiers of Presidio's default English registry beyond textdp.detect.pii's
(textdp.detect.identifiers): what each takes, what it leaves, and its surrogates."""

from __future__ import annotations

import re

import numpy as np
import pytest

from textdp.detect.identifiers import LABELS, dea_valid, layout, npi_valid
from textdp.detect.pii import find_pii, shape_of, surrogate


def found(text: str) -> list[tuple[str, str]]:
    return [(m.label, text[m.start:m.end]) for m in find_pii(text)]


@pytest.mark.parametrize("text,label,value", [
    ("Passport number 912803456 was scanned.", "US_PASSPORT", "912803456"),
    ("Her passport no. A12345678 expires.", "US_PASSPORT", "A12345678"),
    ("German passport C01X00T47 issued 2019.", "PASSPORT", "C01X00T47"),
    ("Canadian passport AB123456.", "PASSPORT", "AB123456"),
    ("Indian passport no. J8369854, valid", "PASSPORT", "J8369854"),
    ("passport # 12AB34567", "PASSPORT", "12AB34567"),
    ("Sort code 20-00-00, account 12345678.", "UK_SORT_CODE", "20-00-00"),
    ("sort-code: 404784", "UK_SORT_CODE", "404784"),
    ("S/C 40 47 84", "UK_SORT_CODE", "40 47 84"),
    ("Driver's license D123-4567-8901 suspended.", "US_DRIVER_LICENSE", "D123-4567-8901"),
    ("DL# S530 460 72 1", "US_DRIVER_LICENSE", "S530 460 72 1"),
    ("driving licence number WDL1234567AB.", "US_DRIVER_LICENSE", "WDL1234567AB"),
    ("Checking account 0012345678901 is overdrawn.", "US_BANK_NUMBER", "0012345678901"),
    ("Wire it to acct 1234-56789012 today.", "US_BANK_NUMBER", "1234-56789012"),
    ("routing 011000015 and", "US_BANK_NUMBER", "011000015"),
    ("Signed by AB1234563 today.", "MEDICAL_LICENSE", "AB1234563"),
    ("Provider NPI 1234567893 billed.", "MEDICAL_LICENSE", "1234567893"),
    ("Device 00:1A:2B:3C:4D:5E joined.", "MAC_ADDRESS", "00:1A:2B:3C:4D:5E"),
    ("Device 00-1a-2b-3c-4d-5e joined.", "MAC_ADDRESS", "00-1a-2b-3c-4d-5e"),
    ("Blocked 001a.2b3c.4d5e.", "MAC_ADDRESS", "001a.2b3c.4d5e"),
    ("MRN 00482913 admitted.", "MEDICAL_RECORD", "00482913"),
    ("Patient ID: 884-221", "MEDICAL_RECORD", "884-221"),
    ("Medical record number is PK-126978.", "MEDICAL_RECORD", "PK-126978"),
    ("Chart # 77123 reviewed.", "MEDICAL_RECORD", "77123"),
    ("Insurance ID: XJH448821903.", "MEDICAL_RECORD", "XJH448821903"),  # a health plan's
    ("Member ID ABCD12345678", "MEDICAL_RECORD", "ABCD12345678"),
    # national account numbers: long, or with a bank code's letters
    ("Account number 26991059499657245803371 at the bank.", "US_BANK_NUMBER",
     "26991059499657245803371"),
    ("Account number WHAQ72542299351862 at the bank.", "US_BANK_NUMBER", "WHAQ72542299351862"),
    ("Account R4629484700527870012996 closed.", "US_BANK_NUMBER", "R4629484700527870012996"),
    ("SWIFT code GENZFRSX for transfers.", "BIC", "GENZFRSX"),   # letters only: after 'SWIFT'
    ("Pay via KPVPGBO0 today.", "BIC", "KPVPGBO0"),              # with a digit: alone
    ("BIC: DEUTDEFF500", "BIC", "DEUTDEFF500"),
    ("VIN 5HSPSJ8G0KNPG7008 on the title.", "VIN", "5HSPSJ8G0KNPG7008"),  # check digit wrong
    ("Sold 1HGCM82633A004352 last week.", "VIN", "1HGCM82633A004352"),    # valid: alone
    ("Car with plate SJ-910-BS was towed.", "LICENSE_PLATE", "SJ-910-BS"),
    ("registration: AK78 WBU", "LICENSE_PLATE", "AK78 WBU"),
    ("licence plate MÜ-LD-362 seen", "LICENSE_PLATE", "MÜ-LD-362"),
    ("plate 沪A-50784 reported", "LICENSE_PLATE", "沪A-50784"),
    ("number plate: 437다4339", "LICENSE_PLATE", "437다4339"),
    ("Your password is x7#Kd!92pQ, please change it.", "PASSWORD", "x7#Kd!92pQ"),
    ("Enter PIN 4821 to continue.", "PASSWORD", "4821"),
    ("pwd=Tr0ub4dor&3 for the wifi", "PASSWORD", "Tr0ub4dor&3"),
    ("Your one-time code is 583920.", "PASSWORD", "583920"),
    ("api_key=sk_test_4eC39HqLyjWDarjtT1zdp7dc", "PASSWORD", "sk_test_4eC39HqLyjWDarjtT1zdp7dc"),
    ("AWS key AKIAIOSFODNN7EXAMPLE leaked", "PASSWORD", "AKIAIOSFODNN7EXAMPLE"),  # alone
    ("Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.abc123", "PASSWORD",
     "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.abc123"),
    ("My employee ID is EMP-204981.", "PERSONAL_ID", "EMP-204981"),
    ("Customer ID: CUST948372 called", "PERSONAL_ID", "CUST948372"),
    ("student no. 20231145 enrolled", "PERSONAL_ID", "20231145"),
    # labels of chats, configuration files, logs and JSON
    ("network is Domek_Mazury, pass is sosna2019! ok", "PASSWORD", "sosna2019!"),
    ("door code 4471# thanks", "PASSWORD", "4471#"),
    ("the gate code is 1987.", "PASSWORD", "1987"),
    ("WPA2 key: sunflower-harbor-42", "PASSWORD", "sunflower-harbor-42"),
    ("DB_PASSWORD=Xq7!vR2p#staging", "PASSWORD", "Xq7!vR2p#staging"),
    ('{"user_id": "u_48213977", "name": "Hiroshi"}', "PERSONAL_ID", "u_48213977"),
    ("reset requested user_id=882104 ip=10.0.0.1", "PERSONAL_ID", "882104"),
    ("a green Land Rover, YX15 KDU, park next to it", "LICENSE_PLATE", "YX15 KDU"),  # alone
    ("Wunschkennzeichen: M-FH 1706", "LICENSE_PLATE", "M-FH 1706"),
    # a label in JSON, its key and value quoted
    ('{"name": "Naledi", "mobile": "0614452209"}', "PHONE", "0614452209"),
    ("{'mrn': '00482913'}", "MEDICAL_RECORD", "00482913"),
    # a bank's own name, "account" and employee numbers in other languages
    ("Vietcombank 0071000583921, chủ TK", "US_BANK_NUMBER", "0071000583921"),
    ("Kontonummer: 0532013000", "US_BANK_NUMBER", "0532013000"),
    ("numéro de compte 30004000031234567890", "US_BANK_NUMBER", "30004000031234567890"),
    ("사번: KR-20240517", "PERSONAL_ID", "KR-20240517"),
    ("Personalnummer 00482913", "PERSONAL_ID", "00482913"),
    # codes read out in groups, log-in codes, "password" in other languages
    ("Your verification code is 739 214. It expires", "PASSWORD", "739 214"),
    ("Monzo: Your login code is 839201. Don't share it", "PASSWORD", "839201"),
    ("la contraseña es Perro#2024 ok", "PASSWORD", "Perro#2024"),
    ("das Passwort ist Sommer2024!", "PASSWORD", "Sommer2024!"),
    ("mot de passe : Soleil!88", "PASSWORD", "Soleil!88"),
    ("كلمة سر الواي فاي Qamar@2024", "PASSWORD", "Qamar@2024"),
    ("the password for the wifi is Tr0ub4dor&3", "PASSWORD", "Tr0ub4dor&3"),
    ("WLAN 密码: hx8-Lq2p", "PASSWORD", "hx8-Lq2p"),
    # "acc", CLABE, and shorter accounts right after their label
    ("pay to sort code 20-45-77, acc 31926819, ref FLAT2", "US_BANK_NUMBER", "31926819"),
    ("CLABE interbancaria: 012180015526018152", "US_BANK_NUMBER", "012180015526018152"),
    ("Account: 4829175 (transit 30012)", "US_BANK_NUMBER", "4829175"),
    ("Itaú, agência 0341, conta corrente 48291-7", "US_BANK_NUMBER", "48291-7"),
    ("三菱UFJ銀行 渋谷支店 普通 4829173", "US_BANK_NUMBER", "4829173"),
    ("Nr rejestracyjny pojazdu: WX 4829K", "LICENSE_PLATE", "WX 4829K"),
    ("placa: ABC-1D23", "LICENSE_PLATE", "ABC-1D23"),
    ("车牌号：京A·12345", "LICENSE_PLATE", "京A·12345"),
    # member and customer numbers, a number "will be", a person's record id, log-in pairs
    ("Membership no.: FH-0048213", "PERSONAL_ID", "FH-0048213"),
    ("お客様番号：KJ-0048213", "PERSONAL_ID", "KJ-0048213"),
    ("N° adhérent : HM-4829173", "PERSONAL_ID", "HM-4829173"),
    ("Your employee code will be PN-77412.", "PERSONAL_ID", "PN-77412"),
    ('[\n  {"id": "EMP-3310", "name": "Zanele Dlamini", "office": "JHB-2"}\n]', "PERSONAL_ID",
     "EMP-3310"),
    ('{\n  "id": "u_48213977",\n  "first_name": "Ana"\n}', "PERSONAL_ID", "u_48213977"),
    ("Admin login reset to: admin / Nile#Cairo77", "PASSWORD", "Nile#Cairo77"),
    ("credentials: jdoe/Tr0ub4dor&3", "PASSWORD", "Tr0ub4dor&3"),
    ("Police (Officer Reyes, badge 4471) at bedside", "PERSONAL_ID", "4471"),
    ("Our account ID is ACC-55219. Can we", "PERSONAL_ID", "ACC-55219"),
    ("DOB: 17/05/1985   Hosp No: RX0049211", "MEDICAL_RECORD", "RX0049211"),
    ("Employee #: 00482", "PERSONAL_ID", "00482"),            # "#" before a colon
    # India's provident fund and state insurance numbers
    ("UAN: 100904567321, PF", "PERSONAL_ID", "100904567321"),
    ("PF No: MH/BAN/0012345/000/0001234", "PERSONAL_ID", "MH/BAN/0012345/000/0001234"),
    ("ESIC: 3100123456", "PERSONAL_ID", "3100123456"),
    ("Frequent flyer #: 48213977", "PERSONAL_ID", "48213977"),
    ("login: jsmith82 / pw: Summer2024!", "PASSWORD", "Summer2024!"),
    # a beneficiary number in groups of digits, whole; "emp" and "cust" labels
    ("My Medicare number is 2953 17184 1 and", "MEDICAL_RECORD", "2953 17184 1"),
    ("Emp ID: E-20931 | PAN", "PERSONAL_ID", "E-20931"),
    ("Cust no. 448213", "PERSONAL_ID", "448213"),
])
def test_identifiers_are_taken_with_their_context_or_checksum(text, label, value):
    assert (label, value) in found(text)


@pytest.mark.parametrize("text", [
    "Order 912803456 shipped.",                      # nine digits without 'passport'
    "Order C01X00T47 shipped.",                      # an ICAO-shaped code without it
    "Passport renewed 20230412, fee 145.",           # digits alone: a date, an amount
    "passport photo is 35X45 MM",                    # one digit group short of two digits
    "Call 20-00-00 or sort the code 11 22 33.",      # no sort-code label before it
    "Reference A12345678 attached.",
    "Checking account balance: 31 087 385 €.",       # thousands, a currency
    "The bank holiday falls on 2021-03-04.",         # a date after 'bank'
    "DL test booked for pages 100-365.",             # a range after 'DL'
    "Driver's license renewed 2019-2021.",           # years
    "routing 011000016 and",                         # fails the ABA checksum
    "Signed by AB1234564 today.",                    # fails the DEA check digit
    "Provider NPI 1234567894 billed.",               # fails the NPI check
    "Reference 1234567893 attached.",                # a valid NPI without 'NPI'
    "Version 00:1A:2B:3C:4D was out.",               # five pairs, not a MAC
    "Mixed 00:1A-2B:3C-4D:5E noted.",                # two kinds of separator
    '{"id": "ORD-4471", "total": 23.85}',            # a record's id, no person named in it
    '{"id": "ORD-4471", "items": [{"sku": 1}], "customer": {"name": "Ana"}}',  # another's
    "Login: 10/2024 attempts",                       # no user name before the "/"
    "a badge of honour 300 times",                   # no number right after "badge"
    "MRN verified, total 2003.",                     # words between the label and a number
    "Patient ID checked on 2021-03-04.",
    "Patient ID 2021-03-04, paid $12345.",           # a date; an amount
    "Admitted 00482913 to ward 4.",                  # no label
    "See LA1118909.DOC attached.",                   # a file name (a valid DEA shape)
    "Filed as AB1234563/2 today.",                   # a path
    "The DEUTDEFF office, no digit, no 'SWIFT'.",     # a BIC of letters alone: a word
    "Order 1HGCM82633A004353 shipped.",              # a VIN's shape, wrong check, no 'VIN'
    "The plate was cold.", "the plate 12 was cold",  # no capitals and digits after 'plate'
    "Registration is open until 2024.",              # a year after 'registration'
    "Registration closes 2021-03-04.",               # a date
    "Your password is incorrect.",                   # a word after a secret's label
    "password: ********",                            # a masked value
    "Deliver to MG Road, PIN code 560001.",          # India's postcode
    "Password changed on 2021-03-04.",               # a word between label and value
    "the token was invalid",
    "Customer 5521 called",                          # no ID label
    "Employee ID checked on 2021-03-04.",
    "user ID 12",                                    # fewer than three digits
    "I will pass on 4pm2day", "pass the salt",       # "pass" not before "is", ":" or "="
    '{"order_id": "A-12345"}',                       # an order's id
    '{"bankHoliday": "2021-03-04"}',                 # a date after "bank"
    '{"mobile": "iPhone 15", "qty": "12"}',          # no number after the label
    "Model XR99 ABC in stock", "London SW1A 1AA",    # no half-year 99; a postcode
    "password for Anna is changed", "PIN the wifi router",  # no secret after the words
    "the verification code expired on 2021-03-04",   # a date after a code's label
    "my account has 25000 followers", "account 2024",  # words between; a year
    "Account created 12/03/2021, balance 45000",     # a date, a number with no label
])
def test_ordinary_numbers_are_left(text):
    assert not {label for label, _ in found(text)} & set(LABELS)


def test_a_bank_number_is_not_the_tail_of_a_longer_number():
    """A bank's name before a phone written in groups ("Swedbank … +46 8 482 913 70") made
    its last groups an account and left the country and area codes."""
    text = "Swedbank 8327-9\nTelefon: +46 8 482 913 70"
    assert ("PHONE", "+46 8 482 913 70") in found(text)


def test_checksums():
    assert dea_valid("AB1234563") and not dea_valid("AB1234560")
    assert dea_valid("A91234563")  # a '9' for the second character (mid-level, no surname)
    assert not dea_valid("IB1234563")  # I is no registrant type
    assert npi_valid("1234567893") and not npi_valid("3234567893")


CONTEXT = {"US_PASSPORT": "passport {}", "PASSPORT": "passport {}",
           "UK_SORT_CODE": "sort code {}", "US_DRIVER_LICENSE": "driver's license {}",
           "US_BANK_NUMBER": "account {}", "MEDICAL_LICENSE": "NPI {}", "MAC_ADDRESS": "mac {}",
           "MEDICAL_RECORD": "MRN: {}", "BIC": "SWIFT {}", "VIN": "VIN {}",
           "LICENSE_PLATE": "plate {}", "PASSWORD": "password: {}",
           "PERSONAL_ID": "employee ID {}"}
VALUES = {"US_PASSPORT": ("912803456", "A12345678"),
          "PASSPORT": ("C01X00T47", "AB123456", "12AB34567"),
          "UK_SORT_CODE": ("20-00-00", "404784", "40 47 84"),
          "US_DRIVER_LICENSE": ("D123-4567-8901", "S530 460 72 1", "WDL1234567AB"),
          "US_BANK_NUMBER": ("0012345678901", "1234-56789012"),
          "MEDICAL_LICENSE": ("AB1234563", "A91234563", "1234567893"),
          "MAC_ADDRESS": ("00:1A:2B:3C:4D:5E", "00-1a-2b-3c-4d-5e", "001a.2b3c.4d5e"),
          "MEDICAL_RECORD": ("00482913", "884-221", "PK-126978"),
          "BIC": ("DEUTDEFF", "KPVPGBO0XYZ"),
          "VIN": ("1HGCM82633A004352", "5HSPSJ8G0KNPG7008"),
          "LICENSE_PLATE": ("SJ-910-BS", "AK78 WBU", "5R 77925"),
          "PASSWORD": ("x7#Kd!92pQ", "4821", "Summer2024!"),
          "PERSONAL_ID": ("EMP-204981", "CUST948372", "20231145", "MH/BAN/0012345/000/0001234")}


@pytest.mark.parametrize("label", LABELS)
def test_surrogates_keep_the_layout_and_are_refound(label):
    rng = np.random.default_rng(0)
    for value in VALUES[label]:
        shape = shape_of(label, value)
        assert shape.layout == layout(label, value)
        outs = {surrogate(label, shape, rng) for _ in range(30)}
        for out in outs:
            # the same layout: digits, letters (by case) and separators in the same places
            assert layout(label, out) == shape.layout, (label, out)
            assert found(CONTEXT[label].format(out)) == [(label, out)]
        if label != "MAC_ADDRESS":
            assert len(outs) > 20  # drawn, not fixed
        assert value not in outs


def test_mac_surrogates_are_the_documentation_block():
    rng = np.random.default_rng(1)
    for value in VALUES["MAC_ADDRESS"]:
        out = surrogate("MAC_ADDRESS", shape_of("MAC_ADDRESS", value), rng)
        assert re.sub(r"[^0-9a-fA-F]", "", out).upper().startswith("00005E0053")


def test_dea_surrogates_are_practitioners_with_a_valid_check_digit():
    rng = np.random.default_rng(2)
    outs = [surrogate("MEDICAL_LICENSE", shape_of("MEDICAL_LICENSE", "AB1234563"), rng)
            for _ in range(200)]
    assert all(dea_valid(o) and o[0] in "ABFG" for o in outs)
    assert len({o[1] for o in outs}) > 15  # the surname's letter is not copied


def test_a_surrogate_fills_a_token_longer_than_its_format():
    """A target token may hold more than the value its format reads (the token of a match
    that a front end did not cut): its surrogate keeps the layout, never fails."""
    rng = np.random.default_rng(3)
    for label, value in (("MEDICAL_LICENSE", "AB1234563.x9"), ("MAC_ADDRESS",
                         "00:1A:2B:3C:4D:5E:6F")):
        shape = shape_of(label, value)
        out = surrogate(label, shape, rng)
        assert layout(label, out) == shape.layout


def test_cut_back_keeps_the_longest_prefix_that_fits():
    from textdp.detect.numbers import cut_back

    assert cut_back("4111 1111 1111 1111 05", lambda v: len(v) <= 19) == "4111 1111 1111 1111"
    assert cut_back("SJ-910-BS", lambda v: True) == "SJ-910-BS"
    assert cut_back("12345678 A", lambda v: " " not in v) == "12345678"
    assert cut_back("AB CD", lambda v: False) == ""
