#!/usr/bin/env python
"""Build the held-out anonymiser probe set (part b).

Texts below are hand-written. Gold spans are written inline as
[[surface text|LABEL]]; this script strips the markup, records character
offsets (end exclusive) into the stripped text and writes
textdp/evaluate/data/probe_chat_pii.jsonl with one {"text", "spans", "kind"} object per line
(a dev sample of textdp: `textdp evaluate detection --data textdp/evaluate/data/probe_chat_pii.jsonl`).

Identifier values were generated once with python-stdnum / Luhn / mod-97 /
VIN / base58check / bech32 / EIP-55 so that their checksums are right, then
pasted in by hand in different real-world layouts. The checks at the bottom
re-validate them (where a validator exists) and fail loudly if one is wrong.

Conventions used for the gold:
  * PERSON = given names, surnames, nicknames, diminutives; titles (Dr, Mr,
    Auntie, Uncle, Agent) are left out; possessive 's is left out.
  * A chat nick that is just a name (wanjiru, kenji) is PERSON; a username with
    digits, dots, underscores or an @ is HANDLE (the @ is inside the span).
  * An e-mail address / URL is one span even if it contains a name.
  * STREET_ADDRESS = house number + street (+ flat/unit when written on the
    same street line); city is not marked; POSTCODE is a separate span.
  * Only dates of birth are DATE_OF_BIRTH; other dates are left unmarked.
  * Addresses, e-mails, URLs and phone numbers of organisations are marked
    too (the labels are about the form, not about who owns them).
  * Bot / app speakers (PagerDuty, Nightbot), pets, kinship words (Mum,
    Papa, dadi), brands, bands, teams and places named after people are
    not PERSON.
  * Near-misses (order/invoice/tracking numbers, SKUs, versions, flight
    numbers, amounts, times, room numbers, tx hashes, BIC/IFSC bank codes,
    bank branch/transit codes, company VAT/EIN/NIP numbers, booking
    references, claim/case numbers) are deliberately left unmarked.
"""
import itertools
import json
import re
import sys
from collections import Counter
from pathlib import Path

LABELS = {
    "PERSON", "HANDLE", "EMAIL", "PHONE", "URL", "IP", "CREDIT_CARD", "IBAN",
    "US_SSN", "UK_NHS", "UK_NINO", "NATIONAL_ID", "PASSPORT",
    "US_DRIVER_LICENSE", "US_BANK_NUMBER", "UK_SORT_CODE", "CRYPTO",
    "MAC_ADDRESS", "MEDICAL_RECORD", "PASSWORD", "PERSONAL_ID",
    "DATE_OF_BIRTH", "STREET_ADDRESS", "POSTCODE", "LICENSE_PLATE", "VIN",
    "COORDINATES",
}

MARK = re.compile(r"\[\[([^\[\]|]+?)\|([A-Z_]+)\]\]")


def T(s):
    """Drop the newline right after the opening quotes and trailing blanks."""
    if s.startswith("\n"):
        s = s[1:]
    return s.rstrip()


CHAT = []
PII = []

# ---------------------------------------------------------------------------
# kind = chat
# ---------------------------------------------------------------------------
CHAT += [
T("""
[10:42] [[amal_k|HANDLE]]: morning all, anyone seen the Q3 deck? [[mateo|PERSON]] said it was in the shared drive but i cant find it
[10:43] [[ben.okafor|HANDLE]]: its in /marketing/2024 i think. ask [[siobhan|PERSON]], she moved everything last week
[10:43] [[amal_k|HANDLE]]: ugh ok ill ask her after standup
[10:51] [[s.mccarthy|HANDLE]]: lol i'm right here. renamed it to Q3-final, sorry!! [[amal|PERSON]] check ur DMs
[10:52] [[amal_k|HANDLE]]: ty 🙏
"""),
T("""
<[[wanjiru|PERSON]]> anyone around? build is red again
<[[kimani|PERSON]]> yeah saw it. [[tomasz|PERSON]]'s last commit broke the arm64 runner
<[[wanjiru|PERSON]]> smh. ping him?
<[[kimani|PERSON]]> he's offline, it's like 2am in Kraków
* [[tnowak|HANDLE]] has joined #infra
<[[tnowak|HANDLE]]> not asleep, fixing it now, sorry
<[[wanjiru|PERSON]]> 😂 speak of the devil
"""),
T("""
[[Tomasz Nowak|PERSON]] 3:15 PM
Can we push the review to Thursday? [[Agnieszka|PERSON]] is out sick today.
[[Grace Adeyemi|PERSON]] 3:17 PM
Fine by me. I'll move it in Outlook. Should I invite [[Mark|PERSON]] from legal too?
[[Tomasz Nowak|PERSON]] 3:18 PM
Yes please, and [[Will Hartley|PERSON]] if he's back from Lisbon.
[[Grace Adeyemi|PERSON]] 3:18 PM
👍 will do
"""),
T("""
12/03/2024, 21:14 - Mum: Has anyone spoken to Auntie [[Ngozi|PERSON]]? She hasn't answered my calls
12/03/2024, 21:15 - [[Chidi|PERSON]]: I called her this morning, she's fine, phone was on silent lol
12/03/2024, 21:15 - Mum: Thank God. Tell [[Ifeoma|PERSON]] to bring the cooler for Saturday
12/03/2024, 21:16 - [[Adaeze|PERSON]]: I'll tell her. Also Uncle [[Emeka|PERSON]]'s new number is [[0803 456 7812|PHONE]]
12/03/2024, 21:17 - [[Chidi|PERSON]]: saved 👍
"""),
T("""
Agent ([[Lwazi|PERSON]]): Hi, thanks for contacting Vodacom support, my name is [[Lwazi|PERSON]]. How can I help today?
Customer: hi my sim stopped working after i swapped phones
Agent ([[Lwazi|PERSON]]): Sorry to hear that! Can I please have the number linked to the account?
Customer: [[082 447 1936|PHONE]]
Agent ([[Lwazi|PERSON]]): Thank you. And the account holder's full name for verification?
Customer: [[Thandiwe Nkosi|PERSON]]
Agent ([[Lwazi|PERSON]]): Thanks Ms [[Nkosi|PERSON]]. I've sent a one-time PIN to that number, please read it back to me.
Customer: [[558213|PASSWORD]]
Agent ([[Lwazi|PERSON]]): Perfect, you're verified. I can see the SIM was deactivated at 14:02, reactivating it now. Anything else?
Customer: no thats all thanks [[lwazi|PERSON]]
"""),
T("""
hey its [[rose|PERSON]]!! new number, save this one: [[07700 900461|PHONE]]
> omg hi [[rose|PERSON]] 😍 saved. r u coming to [[june|PERSON]]'s thing on sat?
yes!! is [[summer|PERSON]] bringing her bf or nah
> ngl i hope not lol. he spent the whole of last summer talking about crypto
"""),
T("""
[All] [[xX_NightHawk_Xx|HANDLE]]: gg ez
[Team] [[pedro_bala|HANDLE]]: bro who was on B site??
[Team] [[kenji|PERSON]]: me, sorry lag spike
[Team] [[pedro_bala|HANDLE]]: np. [[rocky|PERSON]] u still buying for me next round?
[Team] [[RockyB_07|HANDLE]]: ya ya chill
[All] [[xX_NightHawk_Xx|HANDLE]]: uninstall [[kenji|PERSON]] 💀
[Team] [[kenji|PERSON]]: reported lol
"""),
T("""
[[Diego|PERSON]], 27 · 3 km away
[[Diego|PERSON]]: hey! your dog in the 3rd pic is adorable, what's his name?
You: haha that's Biscuit, he's a menace 🐶
[[Diego|PERSON]]: lmao he looks like one. I'm [[Diego|PERSON]] btw, well you can see that. what do you do?
You: nurse at St Thomas'. you?
[[Diego|PERSON]]: sound engineer, mostly gigs. did Arctic Monkeys at the O2 last month
You: ok that's actually cool
[[Diego|PERSON]]: want to grab a drink thurs? my insta is [[@diego.sounds|HANDLE]] if you'd rather chat there
"""),
T("""
- [[Priya|PERSON]]: guys the airbnb host finally replied
- [[Priya|PERSON]]: address is [[14 Rua das Flores|STREET_ADDRESS]], [[1200-195|POSTCODE]] Lisboa, door code [[4471#|PASSWORD]]
- [[Arjun|PERSON]]: legend 🙌
- [[Kavya|PERSON]]: is that near Bairro Alto?
- [[Priya|PERSON]]: ya 10 min walk. [[arjun|PERSON]] pls dont lose the keys this time
- [[Arjun|PERSON]]: ONE time
"""),
T("""
[[Niamh|PERSON]]: are we still on for the match tonight
[[Cillian|PERSON]]: ya, Kerry v Dublin, pub at 7
[[Niamh|PERSON]]: is [[oisín|PERSON]] coming? he owes me a pint
[[Cillian|PERSON]]: lol he owes everyone a pint. [[aoife|PERSON]] said she'd drive us back
[[Niamh|PERSON]]: saint [[aoife|PERSON]] 🙏
"""),
T("""
[[Nguyễn Thị Lan|PERSON]]: Chị ơi, em gửi số tài khoản nhé
[[Nguyễn Thị Lan|PERSON]]: Vietcombank [[0071000583921|US_BANK_NUMBER]], chủ TK [[Nguyen Thi Lan|PERSON]]
[[Trần Minh Huy|PERSON]]: ok em, anh chuyển 2 triệu tối nay
[[Nguyễn Thị Lan|PERSON]]: dạ cảm ơn anh [[Huy|PERSON]] 😊
"""),
T("""
[09:01] <[[youssef|PERSON]]> salam everyone
[09:02] <[[layla_h|HANDLE]]> wa alaikum salam! [[youssef|PERSON]] did [[omar|PERSON]] send the invoice?
[09:02] <[[youssef|PERSON]]> not yet, he's flying back from Amman today
[09:03] <[[layla_h|HANDLE]]> ok. [[fatima|PERSON]] needs it before the 15th for the audit
[09:05] <[[youssef|PERSON]]> i'll remind him. invoice is INV-2024-0381 right?
[09:05] <[[layla_h|HANDLE]]> yep
"""),
T("""
[[Kasia|PERSON]] 🌸: [[wojtek|PERSON]] do you have the wifi password for the cottage
[[Wojtek|PERSON]]: network is Domek_Mazury, pass is [[sosna2019!|PASSWORD]]
[[Kasia|PERSON]] 🌸: dzięki!! 💕
[[Małgorzata Wiśniewska|PERSON]]: Kochani, dinner at 19:00, [[Bartek|PERSON]] is making pierogi
[[Wojtek|PERSON]]: [[bartek|PERSON]] is burning pierogi you mean 😂
"""),
T("""
User: hi i was charged twice for my Uber Eats order
Support ([[Sunny|PERSON]]): Hi there, I'm [[Sunny|PERSON]] and I'll be helping you today. I'm sorry about the double charge! Could you share the email on your account?
User: [[marisol.rdz88@gmail.com|EMAIL]]
Support ([[Sunny|PERSON]]): Thanks! I can see order #4471-2289 for $23.85 charged at 7:41 PM and again at 7:42 PM. I've refunded the duplicate, it'll show in 3-5 business days.
User: ok thank u [[sunny|PERSON]]
Support ([[Sunny|PERSON]]): Anytime, [[Marisol|PERSON]]! Have a sunny evening ☀️
"""),
T("""
[[mark|PERSON]] pls mark the attendance sheet before u leave
> [[mark|PERSON]]: done. also [[bill|PERSON]] is off tmrw, his kid is sick
ok np. tell [[pat|PERSON]] to cover the front desk
> [[mark|PERSON]]: [[pat|PERSON]] said she can only do till 2
fine, ill pay the bill for lunch if someone covers 2-5 lol
"""),
T("""
[[Zeynep|PERSON]]: [[Emre|PERSON]] abi, yarın maça geliyor musun?
[[Emre|PERSON]]: Galatasaray - Fenerbahçe mi? tabii ki 😄
[[Zeynep|PERSON]]: [[Mehmet|PERSON]] da geliyor, [[Ayşe|PERSON]] bilet aldı
[[Emre|PERSON]]: süper. [[ayşe|PERSON]]'ye IBAN'ımı atayım mı?
[[Ayşe Demir|PERSON]]: gerek yok abi, sonra ödersin 🙂
"""),
T("""
From: [[+63 917 482 3310|PHONE]]
Hi po ma'am [[Rowena|PERSON]], this is [[Jhun|PERSON]] from the Jollibee branch in Makati. Your order for the party is ready for pickup. Pls bring ur receipt #88213. Salamat po!
Reply: ok [[jhun|PERSON]] thank u, my cousin [[Maricel|PERSON]] will pick it up at 4pm
"""),
T("""
[[Giorgos|PERSON]]: [[Eleni|PERSON]] are you at the taverna yet?
[[Eleni|PERSON]]: almost, parking is a nightmare in Plaka
[[Giorgos|PERSON]]: [[kostas|PERSON]] got us a table outside. [[dimitra|PERSON]] says hi
[[Eleni|PERSON]]: tell her hi back!! 5 mins
"""),
T("""
[[Ji-woo|PERSON]]: 오빠 어디야?
[[Minjun|PERSON]]: 강남역 11번 출구. you?
[[Ji-woo|PERSON]]: omw, 10 min. [[seo-yeon|PERSON]] is with me
[[Minjun|PERSON]]: ok. [[park|PERSON]] sunbae said he'd be late again lol
[[Ji-woo|PERSON]]: ofc he did 🙄
"""),
T("""
[[Abebe|PERSON]]: [[Selam|PERSON]], the coffee ceremony is at [[Tigist|PERSON]]'s place on Sunday
[[Selam|PERSON]]: Which [[Tigist|PERSON]]? 😅
[[Abebe|PERSON]]: [[Tigist Haile|PERSON]], [[Dawit|PERSON]]'s sister. [[22 Bole Road|STREET_ADDRESS]], near Edna Mall
[[Selam|PERSON]]: ahh ok ok, I'll bring injera
"""),
]

CHAT += [
T("""
[[shadowfox|HANDLE]] — Today at 8:14 PM
[[@Lupita|HANDLE]] r u joining the raid tonight
[[lupita_gg|HANDLE]] — Today at 8:15 PM
ya after dinner. [[@chuy_77|HANDLE]] is tank right?
[[chuy_77|HANDLE]] — Today at 8:15 PM
yessir. [[ximena|PERSON]] said she'd heal but her internet is trash lol
[[lupita_gg|HANDLE]] — Today at 8:16 PM
lmaooo dont let her hear u
"""),
T("""
[[Dmitri|PERSON]]: [[sasha|PERSON]] can u send the card, i'll book the Aeroflot tickets tonight
[[Sasha|PERSON]]: [[4954 2555 0349 1068|CREDIT_CARD]] exp 09/27, name on it is [[Natalia Volkova|PERSON]] (it's mum's)
[[Dmitri|PERSON]]: and the cvv?
[[Sasha|PERSON]]: [[418|PASSWORD]]. delete this after pls!!
[[Dmitri|PERSON]]: ok deleting. [[natasha|PERSON]] knows right?
[[Sasha|PERSON]]: yes mum knows 😅
"""),
T("""
05/06/2023, 18:02 - [[+44 7911 123456|PHONE]]: Hi, is the bike still for sale?
05/06/2023, 18:05 - [[Callum|PERSON]]: Yes mate, still available. £180 ono
05/06/2023, 18:06 - [[+44 7911 123456|PHONE]]: Can I come see it tomorrow after 6? I'm [[Harpreet|PERSON]] btw
05/06/2023, 18:07 - [[Callum|PERSON]]: Sound. [[9 Kelso Road|STREET_ADDRESS]], [[LS2 9PR|POSTCODE]]. Ring the bottom buzzer
05/06/2023, 18:07 - [[+44 7911 123456|PHONE]]: 👍
"""),
T("""
Monzo: Your login code is [[839201|PASSWORD]]. Don't share it with anyone, not even Monzo staff.
"""),
T("""
[[joy.m|HANDLE]]  11:02
PR is up for the retry logic: [[https://github.com/northwind-labs/ingest/pull/4821|URL]]
[[@rahul|HANDLE]] can you take a look? [[@hope.adams|HANDLE]] fyi since it touches billing
[[rahul.s|HANDLE]]  11:05
on it. is this the one that fixes the v2.3.1 regression?
[[joy.m|HANDLE]]  11:06
yep. fingers crossed 🤞 i hope it also fixes the flaky test
[[hope.adams|HANDLE]]  11:20
lgtm from billing side, thanks [[joy|PERSON]]!
"""),
T("""
babe can u send the flowers to mum's? [[27 Birchwood Avenue|STREET_ADDRESS]], Leeds [[LS17 8PJ|POSTCODE]]. card should say love from [[Tom|PERSON]] & [[Hannah|PERSON]] xx
> done ✅ delivery between 10-2 tmrw
ur the best. also [[grace|PERSON]] asked if we can babysit friday 🙃
> by the grace of god we will survive her twins again lol
"""),
T("""
🏠 Flat 4B group
[[Cash|PERSON]]: rent is in. also who drank my oat milk
[[Maddie|PERSON]]: not me. [[king|PERSON]] probably 👀
[[King|PERSON]]: guilty 😭 i'll venmo u
[[Maddie|PERSON]]: spotify family is due too, $3 each. venmo [[@maddie-ross-22|HANDLE]]
[[Cash|PERSON]]: sent. do we pay cash for the cleaner or card?
[[Maddie|PERSON]]: cash, she prefers it
"""),
T("""
Chat with British Airways
You: Hi, my flight BA117 to New York got cancelled, can you rebook me?
Agent [[Hollie|PERSON]]: Hello, I'm [[Hollie|PERSON]], sorry to hear that. Could you confirm your booking reference and surname?
You: ref XK7P2Q, surname [[Oyelaran|PERSON]]
Agent [[Hollie|PERSON]]: Thank you Mr [[Oyelaran|PERSON]]. I can offer BA175 tomorrow at 10:55 from Terminal 5, seat 32A. Shall I confirm?
You: yes please
Agent [[Hollie|PERSON]]: Done! New e-ticket is being sent to [[t.oyelaran@outlook.com|EMAIL]].
"""),
T("""
[[april_skies|HANDLE]]: HYPE HYPE HYPE
[[mod_benny|HANDLE]]: !uptime
Nightbot: Stream has been live for 2h 14m
[[garrett_plays|HANDLE]]: [[april|PERSON]] how do u always get first kill 😤
[[april_skies|HANDLE]]: skill issue [[garrett|PERSON]] 😌
[[bigchungus_404|HANDLE]]: is this the april update or the old map
[[mod_benny|HANDLE]]: april update, patch 14.7
"""),
T("""
[[April Mensah|PERSON]] 9:30 AM
Morning! Quick one before the QBR. [[Lakshmi|PERSON]], can you share the April numbers? [[Ravi|PERSON]] wants them in the deck.
[[Lakshmi Narayanan|PERSON]] 9:34 AM
Sure, uploading now. April was up 12% on March, but May looks softer.
[[Ravi Shankar Iyer|PERSON]] 9:36 AM
Thanks both. [[April|PERSON]], I'll present slides 4-9, you take the rest?
"""),
T("""
[[sam_nurse|HANDLE]]: heads up, bay 3 bed 4 is mrs [[joy okonkwo|PERSON]], she's nil by mouth from midnight
[[dr_patel|HANDLE]]: thx. is her daughter still visiting? [[funmi|PERSON]]?
[[sam_nurse|HANDLE]]: yes, she left her number at the desk: [[07983 114 209|PHONE]]
[[dr_patel|HANDLE]]: ok, i'll call after the ward round
"""),
T("""
Mamá: Mijos, la comida del domingo es en casa de tía [[Rosa|PERSON]] 🌹
[[Lupita|PERSON]]: sí ma, llevo el pastel
[[Chuy|PERSON]]: yo llevo las chelas 🍻
Mamá: [[Chuy|PERSON]] nada de chelas, que va tu abuelo
[[Memo Gutiérrez|PERSON]]: jajaja yo llevo los refrescos entonces. dirección es [[Av. Revolución 1425|STREET_ADDRESS]], col. Tlacopac, CP [[01040|POSTCODE]] verdad?
[[Lupita|PERSON]]: sí esa
"""),
T("""
[[Thiago|PERSON]]: galera, a conta do churrasco deu R$ 480, 80 pra cada
[[Bia|PERSON]]: manda o pix
[[Thiago|PERSON]]: pix é meu cpf: [[471.238.386-02|NATIONAL_ID]]
[[João Pedro|PERSON]]: enviado ✅
[[Gabi|PERSON]]: mandei tb. [[thiago|PERSON]] vc é o melhor churrasqueiro
[[Bia|PERSON]]: mandei pelo celular da [[Gabriela|PERSON]] pq o meu tá sem bateria kkk
"""),
T("""
[[王伟|PERSON]]: 明天几点出发？
[[Li Na|PERSON]]: 8点吧. [[Xiaoming|PERSON]]'s flight CA937 lands at 9:40
[[王伟|PERSON]]: ok 我去接他. [[李娜|PERSON]] 你带护照了吗
[[Li Na|PERSON]]: 带了 带了 😂
"""),
T("""
[[coach_dre|HANDLE]]: training moved to 6pm, pitch 2. Chelsea are using pitch 1
[[chelsea.r|HANDLE]]: wait am i using pitch 1?? 😂
[[coach_dre|HANDLE]]: lol not you [[chelsea|PERSON]], Chelsea U16s
[[marcus10|HANDLE]]: did anyone watch Man United last night. embarrassing
[[chelsea.r|HANDLE]]: don't talk to me about it
"""),
T("""
* Now talking in #linux-help
* [[amir|PERSON]] (~quassel@[[203.0.113.45|IP]]) has joined #linux-help
<[[amir|PERSON]]> hi, my wifi disappeared after kernel 6.8 update on fedora
<[[penguin_greg|HANDLE]]> [[amir|PERSON]]: what card? lspci -k | grep -A3 Network
<[[amir|PERSON]]> Intel AX210, mac is [[a4:c3:f0:2e:91:7b|MAC_ADDRESS]] if that matters
<[[penguin_greg|HANDLE]]> doesn't matter. try booting 6.7.9 from grub and report back
"""),
T("""
Live chat – Virgin Media
[[Kerry-Ann|PERSON]] (Virgin Media): Hi, thanks for waiting. Can I take your account number please?
You: [[61827734|PERSONAL_ID]]
[[Kerry-Ann|PERSON]] (Virgin Media): Thanks. And the first line of the address and postcode?
You: [[33 Mayfield Crescent|STREET_ADDRESS]], [[BN1 8HX|POSTCODE]]
[[Kerry-Ann|PERSON]] (Virgin Media): Perfect. I can see the Hub 5 is offline. Could you read me the MAC address from the sticker on the back?
You: [[5B-E7-00-86-2C-45|MAC_ADDRESS]]
[[Kerry-Ann|PERSON]] (Virgin Media): Thank you, pushing a reset now. It'll take about 10 minutes.
"""),
T("""
[[Joy|PERSON]], 31
[[Joy|PERSON]]: ok your bio says you make the best shakshuka in Sydney. bold claim
You: i stand by it 😤
[[Joy|PERSON]]: prove it then. but public place first lol. I'm in Newtown
You: deal. here's my number so we can stop using this app: [[0412 558 903|PHONE]]
[[Joy|PERSON]]: texting you now 😊
"""),
T("""
[[Aoife|PERSON]]: lads it's Gran's birthday next week, she'll be 83!!
[[Conor|PERSON]]: wait is it the 14th?
[[Aoife|PERSON]]: ya, born [[14 Feb 1941|DATE_OF_BIRTH]], valentine's baby 💕
[[Conor|PERSON]]: i'll book the restaurant. [[sinead|PERSON]] can u do the cake
[[Sinéad|PERSON]]: on it
"""),
T("""
Hi [[Sunny|PERSON]], just a reminder rent of £950 is due on the 1st. Please pay to sort code [[20-45-77|UK_SORT_CODE]], acc [[31926819|US_BANK_NUMBER]], ref FLAT2. Thanks, [[Graham|PERSON]] (landlord)
> Hi [[Graham|PERSON]], will do, paying tmrw morning. Also the boiler is making that noise again
"""),
T("""
[[@ananya|HANDLE]] did u submit the lab report? it's due 11:59
[[ananya.r|HANDLE]]: ya. make sure u put ur student id on the cover, prof [[Okonjo|PERSON]] was strict about it last time
[[kev_m|HANDLE]]: wait what format
[[ananya.r|HANDLE]]: like mine is [[s2214378|PERSONAL_ID]]. and the module code CHEM2041
[[kev_m|HANDLE]]: ok ty ur a lifesaver
"""),
T("""
[[Funke|PERSON]]: Where are you guys? Traffic on Third Mainland is crazy
[[Tunde|PERSON]]: We're at the venue. 📍 Live location: [[6.4281, 3.4219|COORDINATES]]
[[Funke|PERSON]]: ok I see it on the map. Tell [[Bisola|PERSON]] to save me a seat
[[Tunde|PERSON]]: lol [[bisi|PERSON]] already ate your small chops
"""),
T("""
[[hope|PERSON]] said she'll be late, she's stuck at work
> ugh ok. i hope she's here before the speeches at least
she said 8 latest. [[will|PERSON]] is picking her up
> will he actually? last time [[will|PERSON]] forgot
lol have some faith
"""),
T("""
Coach [[Young|PERSON]] wants everyone at the track by 6:30 tmrw
> which one lol, [[Darnell|PERSON]] or his dad?
[[Darnell|PERSON]]. the old man only coaches the young kids now
> ok see u there. tell [[ty|PERSON]] to bring the cones
"""),
]

CHAT += [
T("""
Papa 🙏: beta send everyone's aadhaar no for the tatkal booking, IRCTC needs it
[[Ankit|PERSON]]: mine is [[9863 9221 7173|NATIONAL_ID]]
[[Sneha|PERSON]]: [[422271698889|NATIONAL_ID]]
Papa 🙏: and dadi?
[[Ankit|PERSON]]: i'll check her card at home and send. train is 12951 Rajdhani na?
Papa 🙏: haan, coach B2. [[rahul|PERSON]] ko bhi bol de
"""),
T("""
Marketplace · Ikea Kallax shelf – £25
[[Precious|PERSON]]: Hi is this still available?
[[Stuart|PERSON]]: Hi [[Precious|PERSON]], yes it is. Collection only, I'm on [[48 Hollybank Road|STREET_ADDRESS]], [[B13 9PQ|POSTCODE]]
[[Precious|PERSON]]: Great, could I come at 5:30? My partner [[Kwabena|PERSON]] has a van
[[Stuart|PERSON]]: 5:30 is fine, just knock. Cash or bank transfer both ok
"""),
T("""
[[jordan|PERSON]] is picking us up from the airport at 11
> which airport lol
Queen Alia, we land from Jordan on the RJ111... i mean we land IN Jordan 😂 brain is fried
> hahaha ok. tell [[jordan|PERSON]] to bring snacks
"""),
T("""
Hi this is [[Kwame|PERSON]] from DHL, I'm outside [[18 Adeola Odeku Street|STREET_ADDRESS]], the gate is locked. Pls call me on [[+233 24 418 7750|PHONE]]
> sorry [[kwame|PERSON]]!! coming down now, the security man is on break
"""),
T("""
Year 3 Parents 🍎
Mrs [[Okafor|PERSON]]: Reminder, World Book Day is Thursday, costumes welcome!
[[Leah|PERSON]] ([[Ava|PERSON]]'s mum): does anyone know if they need a packed lunch that day?
[[Ravi|PERSON]] ([[Arjun|PERSON]]'s dad): yes, canteen is closed for the assembly
[[Leah|PERSON]] ([[Ava|PERSON]]'s mum): thanks! [[ava|PERSON]] is going as the Gruffalo again lol
Mrs [[Okafor|PERSON]]: Lovely! Please label all costumes with your child's name 😊
"""),
T("""
[[Finn|PERSON]]: parking at the trailhead is full, we're at the lay-by instead
[[Finn|PERSON]]: [[56°47'48.2"N 5°00'12.3"W|COORDINATES]]
[[Isla|PERSON]]: got it. [[rory|PERSON]] and i are 15 min out
[[Finn|PERSON]]: bring the spare headtorch, [[morag|PERSON]] forgot hers again
"""),
T("""
hello darling its grandma i dont know how to use this phone very well your uncle [[michael|PERSON]] set it up tell [[jessica|PERSON]] thank you for the flowers they are beautiful and tell your mother i will call her sunday after church love grandma
"""),
T("""
🔴 #inc-2291-api-latency
PagerDuty: Triggered: p99 latency > 2s on api-gw-prod (eu-west-1)
[[tunde.a|HANDLE]]: ack, looking
[[tunde.a|HANDLE]]: one node stuck, [[10.42.7.118|IP]]. traffic from [[198.51.100.23|IP]] is hammering /v3/search, 4k rps
[[sofia.r|HANDLE]]: that's the Acme Corp integration. [[@bongani|HANDLE]] can you reach their on-call?
[[bongani|PERSON]]: calling [[Pieter|PERSON]] now
[[tunde.a|HANDLE]]: rate limited at the edge, p99 back to 340ms. incident resolved 14:52 UTC
"""),
T("""
HSBC Chat
You: hi i'm locked out of online banking
[[Aarav|PERSON]] (HSBC): Sorry about that. To verify, please confirm your full name, date of birth and postcode.
You: [[Chloe Marie Dubois|PERSON]], [[03/11/1994|DATE_OF_BIRTH]], [[E14 5AB|POSTCODE]]
[[Aarav|PERSON]] (HSBC): Thank you [[Chloe|PERSON]]. I've unlocked your profile. For security we'll never ask for your full password or PIN in chat.
"""),
T("""
[[vinyl_vic|HANDLE]]: new Tame Impala single is a grower ngl
[[rosie.lee|HANDLE]]: omg no, the [[Rosalía|PERSON]] feature on the remix tho 🔥
[[vinyl_vic|HANDLE]]: [[Taylor Swift|PERSON]] fans gonna riot when Coldplay takes the tour slot lol
[[kofi_beats|HANDLE]]: [[Kevin Parker|PERSON]] could produce a toaster and it'd slap
[[rosie.lee|HANDLE]]: [[kofi|PERSON]] u said the same about [[Billie|PERSON]]
"""),
T("""
[[Hamid|PERSON]]: check, ur king is exposed lol
[[Yusuf|PERSON]]: nah i see it. knight to f6
[[Hamid|PERSON]]: bro u just hung ur queen 😭
[[Yusuf|PERSON]]: ...gg. rematch saturday? [[marcus king|PERSON]] wants to play winner
"""),
T("""
[[charlotte|PERSON]] said she can drive us to charlotte for the conference!!
> wait really? the one in NC?
ya Charlotte NC lol. she has family there
> amazing. i'll tell [[deshawn|PERSON]] so he cancels the rental
"""),
T("""
tell [[siobahn|PERSON]] the meeting moved to 3 (sry typo'd her name lol)
> will do. [[mateooo|PERSON]] is also asking where ur at
omw!! 5 min, bus driver is going at 2mph
"""),
T("""
Instagram DM
[[@lagosbakes.ng|HANDLE]]: Hi dear! Thanks for your interest in the red velvet 🎂 It's ₦35,000 for 8 inches
[[@temi_writes|HANDLE]]: Perfect! Can it say Happy 30th [[Kemi|PERSON]]?
[[@lagosbakes.ng|HANDLE]]: Of course! Pls send delivery address & phone
[[@temi_writes|HANDLE]]: [[12B Ogunlana Drive|STREET_ADDRESS]], Surulere. [[0809 223 4471|PHONE]]
[[@lagosbakes.ng|HANDLE]]: Noted 🙏 Pay to GTBank [[0124587733|US_BANK_NUMBER]], Lagos Bakes Ltd
"""),
T("""
[[Lena|PERSON]]: hey can you send me your passport number? the hostel in Seoul wants it for the booking
[[Max|PERSON]]: sure it's [[C4J7F2K9R|PASSPORT]]
[[Lena|PERSON]]: and expiry?
[[Max|PERSON]]: 06/2031. [[Jonas|PERSON]]'s is in the group chat somewhere
[[Lena|PERSON]]: found it, thx!!
"""),
T("""
26/01/24, 7:45 pm - [[+91 98450 12763|PHONE]]: Namaste, I got your number from [[Deepa|PERSON]] aunty. Are you still giving Carnatic vocal classes?
26/01/24, 7:52 pm - [[Meenakshi|PERSON]]: Namaste! Yes, Saturdays 10 am. May I know your name?
26/01/24, 7:53 pm - [[+91 98450 12763|PHONE]]: I'm [[Harini|PERSON]], for my daughter [[Aditi|PERSON]], she is 9
26/01/24, 7:55 pm - [[Meenakshi|PERSON]]: Wonderful. [[Aditi|PERSON]] can join the junior batch
"""),
T("""
[[Abdulrahman Al-Harbi|PERSON]] 10:02
Shukran [[Hanna|PERSON]] for the notes. Can we sync with Riyadh team at 2?
[[Hanna Tesfaye|PERSON]] 10:05
Sure. [[Khalid|PERSON]] and [[Noura|PERSON]] are both free then. I'll send the Teams link.
[[Abdulrahman Al-Harbi|PERSON]] 10:06
👍 Please also add [[Ahmed Mansour|PERSON]] from procurement
"""),
T("""
Uber: [[Rafael|PERSON]] is arriving in 2 min in a white Toyota Prius · [[KX19 ZPB|LICENSE_PLATE]]. Share your trip PIN [[4821|PASSWORD]] with your driver.
"""),
T("""
[[cryptokev|HANDLE]]: bro send the 0.05 ETH for the concert tix to [[0x28fC4226548b09876be7284AEe949350cDc38166|CRYPTO]]
[[dani_m|HANDLE]]: sent! tx is 0x9f2c4e1ab37d5c0e8f6a2b1d4c3e5f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c2d3e
[[cryptokev|HANDLE]]: got it 🙏 gas was brutal lol
[[dani_m|HANDLE]]: tell [[nadia|PERSON]] to pay me back her half
"""),
T("""
[[xXBlockBuilderXx|HANDLE]]: can sum1 giv me robux
[[pinkunicorn2013|HANDLE]]: no lol
[[xXBlockBuilderXx|HANDLE]]: my name is [[ethan|PERSON]] im 10
[[Roblox_Mod|HANDLE]]: Please don't share personal information in chat.
[[pinkunicorn2013|HANDLE]]: ur gonna get banned [[ethan|PERSON]]
"""),
T("""
[[민지|PERSON]]: 월세 보낼 계좌 알려줘
[[준호|PERSON]]: 국민 [[754602-01-384921|US_BANK_NUMBER]] [[김준호|PERSON]]
[[민지|PERSON]]: 보냈어! [[Junho|PERSON]] thanks for covering last month too
[[준호|PERSON]]: ㅋㅋ no worries
"""),
T("""
Standup Bot  9:00 AM
[[@Gabriela Souza|HANDLE]] — Yesterday: finished SSO migration. Today: load tests. Blockers: none
[[@Wei Zhang|HANDLE]] — Yesterday: on-call. Today: postmortem for INC-2291 with [[Tunde|PERSON]]. Blockers: waiting on [[Pieter|PERSON]] from Acme
[[@Rocky Oduya|HANDLE]] — Yesterday: PTO. Today: catching up. Blockers: laptop still on v13.6.1
"""),
T("""
Hi, it's [[Dave|PERSON]] the plumber, I'm running 20 mins late sorry. Is there parking on the road?
> No worries [[Dave|PERSON]]. Park on the drive, gate code is [[1987|PASSWORD]]. Key for the back door is under the blue pot
> My wife [[Sunita|PERSON]] will be in if you need anything
"""),
T("""
[[أحمد|PERSON]]: السلام عليكم، وصلت الشقة؟
[[فاطمة|PERSON]]: نعم الحمد لله. [[محمد|PERSON]] معي
[[أحمد|PERSON]]: ممتاز. كلمة سر الواي فاي [[Qamar@2024|PASSWORD]]
[[فاطمة|PERSON]]: شكراً 🌙
"""),
T("""
[[田中|PERSON]]さん、明日の会議は10時からです
> 了解です！[[佐藤|PERSON]]さんも来ますか？
はい、[[Sato|PERSON]]-san and [[Emily|PERSON]] from the London office will join on Zoom
> OK 👍
"""),
T("""
DM · [[@nomad_nadia|HANDLE]]
[[@nomad_nadia|HANDLE]]: loved your thread on visas for Bali! quick q, which agent did u use?
[[@jakeontheroad|HANDLE]]: hey! a guy called [[Wayan|PERSON]], super legit. his email is [[wayan.visa@baliconsult.co.id|EMAIL]]
[[@nomad_nadia|HANDLE]]: amazing tysm 🙏 how long did it take?
[[@jakeontheroad|HANDLE]]: ~5 working days. tell him [[Jake|PERSON]] sent u lol
"""),
T("""
[[Olga|PERSON]]: девочки, завтра встречаемся у метро Маяковская в 7
[[Natasha|PERSON]]: ок! [[Светлана|PERSON]] тоже будет?
[[Olga|PERSON]]: да, и [[Ирина Петрова|PERSON]] с работы
[[Natasha|PERSON]]: ура 🥂
"""),
]

# ---------------------------------------------------------------------------
# kind = pii
# ---------------------------------------------------------------------------
PII += [
T("""
Subject: New starter details – [[Amelia Hartley|PERSON]] (start 2 Sept)

Hi [[Dominika|PERSON]],

Please find [[Amelia|PERSON]]'s details below for payroll set-up:

Full name: [[Amelia Rose Hartley|PERSON]]
Employee ID: [[EMP-204417|PERSONAL_ID]]
Date of birth: [[17/06/1995|DATE_OF_BIRTH]]
NI number: [[HT 08 57 03 A|UK_NINO]]
Home address: [[Flat 2, 41 Cranbrook Road|STREET_ADDRESS]], Bristol [[BS6 7BS|POSTCODE]]
Mobile: [[07700 900318|PHONE]]
Bank: Lloyds, sort code [[22-46-02|UK_SORT_CODE]], account no. [[91052418|US_BANK_NUMBER]]
Emergency contact: [[Peter Hartley|PERSON]] (father), [[0117 496 0855|PHONE]]

She's on Band 5 (£34,500) with 25 days' leave. Laptop asset tag LT-0932, desk 4.17.

Thanks,
[[Jordan Ellis|PERSON]]
People Team
"""),
T("""
Betreff: Personalbogen – [[Jonas Becker|PERSON]]

Hallo Frau [[Schulz|PERSON]],

anbei meine Angaben für die Lohnabrechnung ab 01.10.2024:

Name: [[Jonas Becker|PERSON]]
Geburtsdatum: [[04.09.1991|DATE_OF_BIRTH]]
Anschrift: [[Schönhauser Allee 147|STREET_ADDRESS]], [[10435|POSTCODE]] Berlin
Steuer-ID: [[64 710 877 935|NATIONAL_ID]]
Steuerklasse: 1, Kinderfreibeträge: 0
IBAN: [[DE28 7844 3682 1448 3266 53|IBAN]]
BIC: GENODEF1P15
Telefon: [[+49 176 4829 1177|PHONE]]

Viele Grüße
[[Jonas Becker|PERSON]]
"""),
T("""
Dossier de location – Appartement T2, 3e étage, loyer 1 240 € CC
Candidate : Mme [[Camille Lefèvre|PERSON]]
Née le : [[12/02/1980|DATE_OF_BIRTH]] à Troyes
N° de sécurité sociale : [[2 80 02 10 716 902 35|NATIONAL_ID]]
Adresse actuelle : [[18 rue des Martyrs|STREET_ADDRESS]], [[75009|POSTCODE]] Paris
Téléphone : [[06 48 27 19 53|PHONE]]
E-mail : [[camille.lefevre80@orange.fr|EMAIL]]
Employeur : SNCF, CDI depuis 2014, salaire net 2 850 € / mois
RIB / IBAN : [[FR46 9558 9409 1102 0860 4692 844|IBAN]]
Garant : M. [[Julien Lefèvre|PERSON]] (frère), [[07 81 44 20 96|PHONE]]
"""),
T("""
CONTRATO DE ARRENDAMIENTO DE VIVIENDA

En Madrid, a 3 de junio de 2024.

De una parte, D. [[Javier Morales Ortega|PERSON]], mayor de edad, con DNI [[90401996-J|NATIONAL_ID]] y domicilio en [[Calle de Alcalá 214, 4º B|STREET_ADDRESS]], [[28028|POSTCODE]] Madrid (en adelante, el ARRENDADOR).

De otra parte, Dña. [[Fatou Diallo|PERSON]], con NIE [[Y-5469952-Z|NATIONAL_ID]], teléfono [[+34 612 48 93 07|PHONE]] (en adelante, la ARRENDATARIA).

La renta mensual será de 1.150 € y se abonará antes del día 5 de cada mes en la cuenta [[ES10 8647 4547 2749 3036 2556|IBAN]]. La fianza asciende a dos mensualidades (2.300 €).
"""),
T("""
Gentile dott.ssa [[Ferrari|PERSON]],

le invio i dati richiesti per il rimborso della pratica n. 2024/0871:

Nome e cognome: [[Giulia Esposito|PERSON]]
Codice fiscale: [[SPSGLI90A55H501N|NATIONAL_ID]]
Nata a Roma il [[15/01/1990|DATE_OF_BIRTH]]
Residenza: [[Via dei Serpenti 34|STREET_ADDRESS]], [[00184|POSTCODE]] Roma
IBAN: [[IT92 G643 7670 3943 8556 3119 707|IBAN]]
Cell.: [[347 829 1146|PHONE]]

Importo richiesto: € 312,40 (fatture n. 118 e 119 del 2024).

Cordiali saluti,
[[Giulia Esposito|PERSON]]
"""),
T("""
Inschrijfformulier huisartsenpraktijk De Linde

Naam: [[Sanne de Vries|PERSON]]
BSN: [[176451262|NATIONAL_ID]]
Geboortedatum: [[22-07-1988|DATE_OF_BIRTH]]
Adres: [[Prinsengracht 263-1|STREET_ADDRESS]], [[1016 GV|POSTCODE]] Amsterdam
Telefoon: [[06-48291736|PHONE]]
Zorgverzekeraar: Zilveren Kruis, polisnummer staat op pas
Vorige huisarts: dr. [[Bakker|PERSON]], Utrecht
IBAN (eigen risico): [[NL54 INGB 3061 3915 07|IBAN]]
"""),
T("""
Wniosek o abonament parkingowy – Strefa A

Imię i nazwisko: [[Piotr Kowalczyk|PERSON]]
PESEL: [[76040373417|NATIONAL_ID]]
Adres zamieszkania: [[ul. Marszałkowska 84/92 m. 15|STREET_ADDRESS]], [[00-514|POSTCODE]] Warszawa
Nr rejestracyjny pojazdu: [[WX 4829K|LICENSE_PLATE]]
Telefon: [[+48 601 482 937|PHONE]]
Opłata: 250 zł / miesiąc, przelew na rachunek ZDM
"""),
T("""
Hej [[Anders|PERSON]]!

Här är mina uppgifter till hyreskontraktet:

Namn: [[Elin Johansson|PERSON]]
Personnummer: [[920401-0848|NATIONAL_ID]]
Nuvarande adress: [[Södermannagatan 21|STREET_ADDRESS]], [[116 40|POSTCODE]] Stockholm
Tel: [[070-482 91 37|PHONE]]
Kontonummer för depositionen (IBAN): [[SE75 2167 1625 1766 8150 7964|IBAN]]

Inflyttning 1 november går bra. Hyran 11 450 kr betalar jag senast den 25:e.

Mvh [[Elin|PERSON]]
"""),
T("""
KYC Update Form – HDFC Bank, Koramangala Branch

Customer Name: [[Rohan Gupta|PERSON]]
Customer ID: [[48291736|PERSONAL_ID]]
PAN: [[BVNPG2159F|NATIONAL_ID]]
Aadhaar No.: [[2536 3363 1310|NATIONAL_ID]]
Date of Birth: [[11-Oct-1989|DATE_OF_BIRTH]]
Address: [[Flat 402, Prestige Lakeside, 17 Varthur Main Road|STREET_ADDRESS]], Bengaluru [[560087|POSTCODE]]
Account No.: [[50100482917365|US_BANK_NUMBER]]
IFSC: HDFC0001753
Mobile: [[+91 98860 44127|PHONE]]
Email: [[rohan.gupta89@rediffmail.com|EMAIL]]
Occupation: Salaried, annual income 18-25 lakh
"""),
T("""
Cadastro de cliente – Loja 0412 (Shopping Eldorado)

Nome completo: [[Ana Beatriz Carvalho|PERSON]]
CPF: [[088.082.220-12|NATIONAL_ID]]
Data de nascimento: [[30/05/1997|DATE_OF_BIRTH]]
Endereço: [[Rua Augusta, 1508, apto 52|STREET_ADDRESS]] – Consolação, São Paulo – SP, CEP [[01304-001|POSTCODE]]
Celular: [[(11) 98472-3310|PHONE]]
E-mail: [[anabia.carvalho@gmail.com|EMAIL]]
Débito automático: Itaú, agência 0341, conta corrente [[48291-7|US_BANK_NUMBER]]
Limite aprovado: R$ 3.500,00
"""),
T("""
SOLICITUD DE CRÉDITO PERSONAL – Folio 000318

Nombre: [[Carlos Hurtado Delgado|PERSON]]
CURP: [[HUDC930819HVZRLR01|NATIONAL_ID]]
Fecha de nacimiento: [[19/08/1993|DATE_OF_BIRTH]]
Domicilio: [[Calle Juárez 58|STREET_ADDRESS]], Col. Centro, C.P. [[91000|POSTCODE]], Xalapa, Ver.
Teléfono celular: [[228 814 3927|PHONE]]
CLABE interbancaria: [[012180015526018152|US_BANK_NUMBER]]
Monto solicitado: $45,000 MXN a 24 meses, tasa anual 18.9%
Referencia personal: [[Lucía Domínguez|PERSON]], [[+52 55 4827 1930|PHONE]]
"""),
T("""
酒店入住登记 / Hotel Guest Registration
姓名 Name：[[王芳|PERSON]] ([[WANG FANG|PERSON]])
身份证号 ID No.：[[310104198406090262|NATIONAL_ID]]
出生日期 DOB：[[1984年6月9日|DATE_OF_BIRTH]]
手机 Mobile：[[139 1048 2276|PHONE]]
地址 Address：上海市徐汇区[[漕溪北路88号|STREET_ADDRESS]]
房间号 Room：1512　入住 Check-in：2024-05-02 14:00　房价 Rate：¥680/晚
"""),
T("""
【口座振替依頼書】
氏名：[[鈴木 花子|PERSON]]（[[スズキ ハナコ|PERSON]]）
生年月日：[[1990年3月14日|DATE_OF_BIRTH]]
郵便番号：〒[[150-0001|POSTCODE]]
住所：東京都渋谷区[[神宮前2-11-5|STREET_ADDRESS]]
電話番号：[[090-4829-1733|PHONE]]
個人番号（マイナンバー）：[[0517 4410 6129|NATIONAL_ID]]
振替口座：三菱UFJ銀行 渋谷支店 普通 [[4829173|US_BANK_NUMBER]]
お客様番号：[[KJ-0048213|PERSONAL_ID]]
"""),
T("""
[입사 서류 제출]
성명: [[이서연|PERSON]] ([[Lee Seo-yeon|PERSON]])
주민등록번호: [[980408-2171276|NATIONAL_ID]]
연락처: [[010-7315-2286|PHONE]]
주소: 서울특별시 강남구 [[테헤란로 152|STREET_ADDRESS]] ([[06236|POSTCODE]])
급여계좌: 신한은행 [[110-482-917364|US_BANK_NUMBER]]
사번: [[KR-20240517|PERSONAL_ID]]
"""),
T("""
Hi Mr [[Lim|PERSON]],

Tenancy details for the unit as requested:

Tenant: [[Tan Wei Ling|PERSON]]
NRIC: [[S6388577J|NATIONAL_ID]]
Address: [[Blk 123 Ang Mo Kio Avenue 6, #08-215|STREET_ADDRESS]], Singapore [[560123|POSTCODE]]
Mobile: [[+65 9148 2273|PHONE]]
Lease: 24 months from 1 Aug 2024, S$3,200/month, deposit 2 months

Her son [[Ethan Tan|PERSON]] ([[T2215990E|NATIONAL_ID]]) will also be staying.

Regards,
[[Priscilla Goh|PERSON]]
ERA Realty
"""),
T("""
Hi payroll team,

TFN declaration for our new casual barista:

Name: [[Liam O'Connor|PERSON]]
TFN: [[410 677 687|NATIONAL_ID]]
DOB: [[05/08/2002|DATE_OF_BIRTH]]
Address: [[12/48 Enmore Road|STREET_ADDRESS]], Newtown NSW [[2042|POSTCODE]]
Phone: [[0423 918 556|PHONE]]
Super fund: AustralianSuper, member no. [[1048291736|PERSONAL_ID]]
Rate: Level 2, $26.15/hr + 25% casual loading

Cheers,
[[Bronwyn|PERSON]]
"""),
T("""
FICA verification – new account application

Full names: [[Sipho Daniel Mokoena|PERSON]]
ID number: [[730424 7698 086|NATIONAL_ID]]
Date of birth: [[24 April 1973|DATE_OF_BIRTH]]
Physical address: [[15 Long Street|STREET_ADDRESS]], Cape Town, [[8001|POSTCODE]]
Cell: [[+27 82 771 4490|PHONE]]
Email: [[sipho.mokoena@webmail.co.za|EMAIL]]
Proof of residence: municipal account dated 02/2024
"""),
T("""
Dear Sir/Ma,

Kindly find below my details for the account upgrade:

Name: [[Chukwuemeka Obi|PERSON]]
NIN: [[48291736550|NATIONAL_ID]]
Date of birth: [[1 October 1988|DATE_OF_BIRTH]]
Address: [[7 Admiralty Way|STREET_ADDRESS]], Lekki Phase 1, Lagos [[106104|POSTCODE]]
Phone: [[+234 802 771 4490|PHONE]]
Account number: [[2093847561|US_BANK_NUMBER]] (Access Bank)

Thank you.
[[Chukwuemeka Obi|PERSON]]
"""),
T("""
Direct deposit & payroll enrolment – Desjardins

Employee: [[Marie-Claude Tremblay|PERSON]]
SIN: [[120-776-901|NATIONAL_ID]]
Date of birth: [[1986-11-23|DATE_OF_BIRTH]]
Address: [[4521 rue Saint-Denis|STREET_ADDRESS]], Montréal QC [[H2J 2L4|POSTCODE]]
Phone: [[(514) 482-9173|PHONE]]
Account: [[4829175|US_BANK_NUMBER]] (transit 30012, institution 815)
Start date: 2024-09-03, union local 2019
"""),
T("""
Name: [[Marcus J. Whitfield|PERSON]]
SSN: [[124-95-0744|US_SSN]]
DOB: [[1979-02-28|DATE_OF_BIRTH]]
Address: [[1420 Pine St Apt 4B|STREET_ADDRESS]], Philadelphia, PA [[19102|POSTCODE]]
Phone: [[(215) 847-3390|PHONE]]
Email: [[mwhitfield79@yahoo.com|EMAIL]]
Filing status: Married filing jointly
Dependents: 2
Extra withholding: $50.00
"""),
T("""
Claim #CLM-88421903 — Auto collision, 03/14/2024, 5:40 PM

Insured: [[Jennifer Alvarez-Kim|PERSON]]
Member ID: [[XHP482917365|PERSONAL_ID]]
Driver's license: CA [[D4829176|US_DRIVER_LICENSE]]
Vehicle: 2023 Tesla Model S, VIN [[5YJSP96M6PX823881|VIN]], plate [[8RTK442|LICENSE_PLATE]]

Other party: [[Robert|PERSON]] "[[Bobby|PERSON]]" [[Nguyen|PERSON]], TX DL [[31724586|US_DRIVER_LICENSE]], plate [[LKW-4821|LICENSE_PLATE]] (TX)
Location: I-35 northbound near exit 234B, Austin
Estimated damage: $7,850. Deductible: $500.

Adjuster: [[Samantha Price|PERSON]], ext. 4471
"""),
T("""
Booking confirmation – Qatar Airways
Booking reference: 7XK2PQ

Passengers
1. MR [[ADEBAYO OLUWASEUN OKONKWO|PERSON]] – Passport [[A09847261|PASSPORT]] (NGA), DOB [[12MAR1984|DATE_OF_BIRTH]]
2. MRS [[CHIOMA OKONKWO|PERSON]] – Passport [[A10382947|PASSPORT]] (NGA), DOB [[03SEP1987|DATE_OF_BIRTH]]

Flights
QR1406  LOS–DOH  15 Jul 2024  22:50 → 06:35+1
QR 907  DOH–SYD  16 Jul 2024  08:10 → 06:00+1
Seats 34A / 34B · Baggage 2 x 23 kg
Total fare: NGN 4,812,500
"""),
T("""
Ticket #48213 – VPN keeps dropping (priority P3)

Reporter: [[Agnieszka Zielińska|PERSON]] ([[agnieszka.zielinska@kowal-logistics.pl|EMAIL]])
Laptop: Dell Latitude 7440, asset LT-4471, Windows 11 23H2, GlobalProtect 6.1.3
Wi-Fi MAC: [[7E-72-76-6B-5E-B0|MAC_ADDRESS]]
Ethernet MAC: [[EE:0A:68:F0:40:D3|MAC_ADDRESS]]
Assigned IP: [[172.16.44.109|IP]] (gateway [[172.16.44.1|IP]])
Home public IP: [[83.24.118.207|IP]]

Notes: disconnects every ~30 min since 12 March. Reinstalled client 6.1.3, no change. Assigned to [[Marek|PERSON]] (L2).
"""),
T("""
Hey [[Kenji|PERSON]], staging can't auth against the DB since this morning. Here's the env I'm using, can you spot anything?

APP_ENV=staging
APP_VERSION=4.18.2
DB_HOST=[[10.0.3.25|IP]]
DB_PORT=5432
DB_USER=orders_svc
DB_PASSWORD=[[Xq7!vR2p#staging|PASSWORD]]
STRIPE_SECRET_KEY=[[sk_test_51HxQ2kLm8Vt3RzPq0aW9cD4e|PASSWORD]]
SENTRY_DSN=[[https://o48213.ingest.sentry.io/4471|URL]]
WORKERS=8

(rotating all of these after, obviously)
"""),
T("""
REFERRAL LETTER – Gastroenterology

Patient: Mrs [[Margaret Ann Doyle|PERSON]]
DOB: [[02/04/1948|DATE_OF_BIRTH]]
NHS No: [[862 964 5202|UK_NHS]]
Hospital No: [[RX4829103|MEDICAL_RECORD]]
Address: [[7 Orchard Close|STREET_ADDRESS]], Harrogate [[HG2 8LN|POSTCODE]]
Tel: [[01423 506221|PHONE]]

Dear Dr [[Okafor|PERSON]],

Thank you for seeing this 76-year-old lady with 3 months of iron-deficiency anaemia (Hb 92 g/L). BP 148/92. HbA1c 58 mmol/mol. Current meds: metformin 500 mg BD, ramipril 5 mg OD.

Yours sincerely,
Dr [[Rebecca King|PERSON]], GP – Bilton Surgery
"""),
T("""
PATIENT INTAKE – Riverside Family Clinic
Name: [[Dwayne T. Jackson|PERSON]]
DOB: [[07/22/1965|DATE_OF_BIRTH]]
MRN: [[00482917|MEDICAL_RECORD]]
Address: [[2290 Poplar Ave|STREET_ADDRESS]], Memphis, TN [[38112|POSTCODE]]
Insurance: Aetna, Member ID [[W284917365|PERSONAL_ID]], Group 0048291
Emergency contact: [[LaToya Jackson|PERSON]] (wife) [[(901) 482-7716|PHONE]]
Allergies: penicillin (rash)
Preferred pharmacy: Walgreens #4471, Union Ave
Reason for visit: follow-up, BP 152/94 on 04/02
"""),
T("""
Invoice 2024-118 – Website redesign, phase 2
Amount due: 0.0142 BTC (≈ $950.00), due within 14 days

Please send to: [[bc1qzw9c53n8zr25uvvns6a0cakz0hckd9nerlwflr|CRYPTO]]
If your wallet doesn't support bech32: [[1N8USmSC571edeRWx7jSTmtKMUJpq1PTLM|CRYPTO]]
Or USDT (ERC-20): [[0x57D8eb1D87AEe4b708d6654603225602b6A3d825|CRYPTO]]

Thanks!
[[Matteo Ricci|PERSON]] · [[matteo@ricci.studio|EMAIL]]
"""),
]

PII += [
T("""
Your order has shipped!

Hi [[Keisha|PERSON]],

Order #112-4839201-7730012 placed on 2 May 2024
• Anker PowerCore 20K (SKU A1289-BLK) × 1 — $45.99
• USB-C cable 2 m (SKU C-2207) × 2 — $19.98
Subtotal $65.97 · Tax $5.44 · Total $71.41
Paid with Visa ending in 4465

Shipping to:
[[Keisha Brown|PERSON]]
[[3917 Cedar Springs Rd, Unit 210|STREET_ADDRESS]]
Dallas, TX [[75219-3504|POSTCODE]]
[[(469) 218-4407|PHONE]]

Carrier: UPS · Tracking 1Z 4A7 92E 03 4471 8823
Estimated delivery: Friday, May 10
"""),
T("""
Hello,

I was charged twice for the same booking (ref HBK-77210, 2 nights, room 412). Please refund the duplicate to the card I used:

Card number: [[5163 7956 3094 5464|CREDIT_CARD]]
Expiry: 11/26
Name on card: [[Oluwaseun Adebayo|PERSON]]

Both charges were £318.00 on 14/04. I've attached the bank statement.

Thanks,
[[Seun|PERSON]]
"""),
T("""
{
  "user_id": "[[u_48213977|PERSONAL_ID]]",
  "name": "[[Hiroshi Tanaka|PERSON]]",
  "email": "[[h.tanaka@example-corp.jp|EMAIL]]",
  "phone": "[[+81 3-5412-8870|PHONE]]",
  "dob": "[[1977-11-02|DATE_OF_BIRTH]]",
  "address": {"street": "[[4-2-8 Shibakoen|STREET_ADDRESS]]", "city": "Minato-ku", "zip": "[[105-0011|POSTCODE]]"},
  "plan": "premium",
  "created_at": "2023-08-14T09:21:44Z",
  "last_login_ip": "[[2001:db8:85a3::8a2e:370:7334|IP]]",
  "app_version": "5.2.0"
}
"""),
T("""
employee_id,first_name,last_name,email,dept,ni_number,sort_code,account_no,salary
[[E10482|PERSONAL_ID]],[[Priya|PERSON]],[[Raman|PERSON]],[[priya.raman@brightwell.co.uk|EMAIL]],Finance,[[SH326304C|UK_NINO]],[[40-11-62|UK_SORT_CODE]],[[73849216|US_BANK_NUMBER]],48500
[[E10483|PERSONAL_ID]],[[Gareth|PERSON]],[[Lloyd-Evans|PERSON]],[[g.lloydevans@brightwell.co.uk|EMAIL]],IT,[[ZR880106B|UK_NINO]],[[60-83-71|UK_SORT_CODE]],[[21094837|US_BANK_NUMBER]],52000
[[E10491|PERSONAL_ID]],[[Yetunde|PERSON]],[[Bakare|PERSON]],[[y.bakare@brightwell.co.uk|EMAIL]],Ops,[[KL682706D|UK_NINO]],[[20-32-06|UK_SORT_CODE]],[[58271940|US_BANK_NUMBER]],39750
"""),
T("""
2024-05-14T03:12:09Z WARN  auth-service [req=7f3a9c2e] failed login for [[dmitri.volkov@mailbox.org|EMAIL]] from [[185.220.101.47|IP]] (attempt 5/5, account locked)
2024-05-14T03:12:11Z INFO  auth-service [req=7f3a9c31] password reset requested user_id=[[882104|PERSONAL_ID]] ip=[[185.220.101.47|IP]]
2024-05-14T03:12:40Z INFO  gateway      GET /api/v2/orders/55012 200 38ms ip=[[91.198.174.192|IP]] ua="Mozilla/5.0"
2024-05-14T03:13:02Z ERROR billing      charge declined customer=[[cus_Pq82KdLm31|PERSONAL_ID]] amount=129.00 currency=EUR code=insufficient_funds
"""),
T("""
From: Coinbase <[[no-reply@coinbase.com|EMAIL]]>
Subject: Your verification code

Hi [[Stelios|PERSON]],

Your verification code is [[739 214|PASSWORD]]. It expires in 10 minutes.

If you didn't request this, secure your account at [[https://coinbase.com/security|URL]].
"""),
T("""
BILL OF SALE – MOTOR VEHICLE

Seller: [[Gregory Alan Pruitt|PERSON]], [[612 Wildwood Lane|STREET_ADDRESS]], Boise, ID [[83706|POSTCODE]], Idaho DL [[PR482917G|US_DRIVER_LICENSE]]
Buyer: [[Maria Fernanda Castillo|PERSON]], [[88 Harrison Blvd|STREET_ADDRESS]], Boise, ID [[83702|POSTCODE]], Idaho DL [[CA739216K|US_DRIVER_LICENSE]]

Vehicle: 2018 Hyundai Elantra SE, color silver, odometer 84,212 miles
VIN: [[KMHA224T0PX299078|VIN]]
Plate: [[2A 48K19|LICENSE_PLATE]]
Sale price: $11,400.00 paid by cashier's check #0048217 on June 3, 2024
"""),
T("""
PENALTY CHARGE NOTICE
PCN number: WK48291736
Vehicle registration: [[LR68 XTF|LICENSE_PLATE]]
Make/colour: Ford Fiesta / Blue
Contravention: 12 – parked in a residents' or shared use parking place without a permit
Location: Elgin Avenue, Maida Vale · Date/time: 21/03/2024 09:47
Charge: £130 (reduced to £65 if paid within 14 days)

Registered keeper: Ms [[Danielle Osei|PERSON]], [[55 Shirland Road|STREET_ADDRESS]], London [[W9 2JD|POSTCODE]]
"""),
T("""
RENTAL APPLICATION – [[2150 Mission St #3|STREET_ADDRESS]], San Francisco, CA [[94110|POSTCODE]]

Applicant: [[Tyler Okonkwo-Reyes|PERSON]]
SSN: [[705 22 6910|US_SSN]]
Date of birth: [[April 9, 1992|DATE_OF_BIRTH]]
Driver's license: CA [[Y7318264|US_DRIVER_LICENSE]]
Current address: [[455 Grand Ave Apt 12|STREET_ADDRESS]], Oakland, CA [[94610|POSTCODE]]
Phone: [[510-482-7719|PHONE]] · Email: [[tyler.okr@protonmail.com|EMAIL]]
Employer: Lyft, Senior Data Analyst, since 2021, gross $148,000/yr
Previous landlord: [[Helen Marchetti|PERSON]], [[(510) 663-2081|PHONE]]
Pets: 1 cat (Miso)
"""),
T("""
SCHENGEN VISA APPLICATION – summary

1. Surname: [[PATEL|PERSON]]
2. First name(s): [[NEHA RAJESH|PERSON]]
3. Date of birth: [[14-08-1994|DATE_OF_BIRTH]]
4. Place of birth: Ahmedabad, India
7. Sex: F
13. Travel document: ordinary passport no. [[Z5123487|PASSPORT]], issued 02-03-2019, valid until 01-03-2029
17. Home address: [[B-12, Shanti Nagar, 44 CG Road|STREET_ADDRESS]], Ahmedabad [[380009|POSTCODE]]; email [[neha.patel94@gmail.com|EMAIL]]; tel [[+91 79 2646 1183|PHONE]]
21. Main purpose: tourism · 24. Duration: 12 days · 29. Arrival: 05-06-2024 (flight LH 757)
"""),
T("""
Hi [[Ruth|PERSON]],

Please send the deposit for the Berlin flat by SEPA transfer:

Beneficiary: [[Katharina Vogel|PERSON]]
IBAN: [[DE64 6703 0159 2595 3876 80|IBAN]]
BIC: COBADEFFXXX
Reference: Kaution [[Wühlischstr. 3, WE 12|STREET_ADDRESS]]
Amount: EUR 2,550.00

You're sending from your UK account ([[GB33 LOYD 7554 5326 9529 40|IBAN]]) so the bank may add a £15 fee.

Best,
[[Tom|PERSON]]
"""),
T("""
Membership agreement – FitHub Leeds Central

Member: [[Rhys Llewellyn|PERSON]]
Membership no.: [[FH-0048213|PERSONAL_ID]]
DOB: [[29/11/2000|DATE_OF_BIRTH]]
Mobile: [[07700 900734|PHONE]]
Direct Debit: sort code [[30-94-57|UK_SORT_CODE]], account [[48217730|US_BANK_NUMBER]], collected on the 1st
Plan: Off-peak, £24.99/month, 12-month minimum term
Locker PIN: [[7731|PASSWORD]]
"""),
T("""
Student Enrollment Form – Lincoln Park Elementary, 2024–25

Student: [[Amara Johnson|PERSON]]
Student ID: [[1048291|PERSONAL_ID]]
Date of birth: [[09/14/2017|DATE_OF_BIRTH]]
Grade: 2, Room 114
Parent/guardian 1: [[Denise Johnson|PERSON]], [[(773) 482-9915|PHONE]], [[denise.j.johnson@gmail.com|EMAIL]]
Parent/guardian 2: [[Marcus Johnson|PERSON]], [[(773) 482-1160|PHONE]]
Home address: [[2417 N Clark St|STREET_ADDRESS]], Chicago, IL [[60614|POSTCODE]]
Bus route: 7B
"""),
T("""
From: Lab Results <[[results@stmarys-lab.org|EMAIL]]>
To: [[dr.adebayo@stmarys.org|EMAIL]]

Patient: [[SOTO|PERSON]], [[Gabriel|PERSON]]   MRN: [[MRN-2048391|MEDICAL_RECORD]]   DOB: [[1958-03-30|DATE_OF_BIRTH]]
Specimen collected 05/06/2024 07:15, accession 24-118-0472
  Sodium        138 mmol/L   (135–145)
  Potassium     5.9 mmol/L   (3.5–5.1)   H
  Creatinine    1.8 mg/dL    (0.7–1.3)   H
Please review. Call Nurse [[Jamila|PERSON]] at ext. 4410 with questions.
"""),
T("""
Delivery instructions for order 55-88127:
Farm is at the end of an unmarked track, sat nav sends you the wrong way. Use these: [[52.9531, -1.1497|COORDINATES]]
Ask for [[Ewan|PERSON]] at the barn, or ring [[07700 900215|PHONE]]. Our pickup is a green Land Rover, [[YX15 KDU|LICENSE_PLATE]], park next to it.
"""),
T("""
Hi support,

I sent 1,250 USDT from Binance to my wallet [[0x62840667ae8522334C82adcE1f709e0F2FbF1c41|CRYPTO]] two hours ago and it still hasn't arrived.

Tx hash: 0x4e3b1f0a9c72d5e8b6a04f1c3d2e9b8a7f6c5d4e3b2a1f0e9d8c7b6a5f4e3d2c
Network: Ethereum (ERC-20), withdrawal ID 88213304
My account email is [[lina.haddad@icloud.com|EMAIL]].

Thanks, [[Lina Haddad|PERSON]]
"""),
T("""
Dear American Express,

I want to dispute a charge of $1,218.40 from "TRVL*SKYBOOK 8884" on 02/17. I never received the tickets.

Card: [[3708 214409 74997|CREDIT_CARD]]
Cardmember: [[Patricia|PERSON]] "[[Pat|PERSON]]" [[Delgado|PERSON]]
Billing address: [[9 Beacon Hill Rd|STREET_ADDRESS]], Morristown, NJ [[07960|POSTCODE]]
Phone: [[973.482.1130|PHONE]]

Case number from my first call: 240219-0043.

Regards,
[[Pat Delgado|PERSON]]
"""),
T("""
May 14 02:11:47 fw01 kernel: [UFW BLOCK] IN=eth0 OUT= MAC=[[00:1a:2b:3c:4d:5e|MAC_ADDRESS]] SRC=[[2a02:c7c:5e42:9a00:1d4:88ff:fe21:6b0c|IP]] DST=[[2a01:4f8:c2c:1b7e::1|IP]] LEN=80 PROTO=TCP SPT=51732 DPT=22
May 14 02:11:49 fw01 sshd[20417]: Failed password for invalid user admin from [[45.155.205.233|IP]] port 40118 ssh2
May 14 02:11:52 fw01 sshd[20419]: Accepted publickey for [[ops_rashid|HANDLE]] from [[10.8.0.14|IP]] port 53312 ssh2
"""),
T("""
hostname,ip,mac,owner,location,os_version
lt-fin-0412,[[192.168.20.41|IP]],[[10:1c:e1:ed:43:9a|MAC_ADDRESS]],[[Beatriz Mendes|PERSON]],Lisbon 3F,Windows 11 23H2
lt-eng-0877,[[192.168.20.57|IP]],[[C3-11-26-82-60-CD|MAC_ADDRESS]],[[Oskar Lindqvist|PERSON]],Lisbon 2F,macOS 14.4.1
prn-3f-01,[[192.168.20.250|IP]],[[b827.eb4c.91d2|MAC_ADDRESS]],facilities,Lisbon 3F,fw 2.81
"""),
T("""
Hi [[Carmen|PERSON]], here are the licence numbers for the fleet insurance renewal:

- [[Andre Williams|PERSON]] – NY [[742 918 365|US_DRIVER_LICENSE]], exp 2027
- [[Kelly O'Brien|PERSON]] – FL [[B625-718-84-512-0|US_DRIVER_LICENSE]]
- [[Luis Ortega|PERSON]] – IL [[O263-4871-9024|US_DRIVER_LICENSE]]
- [[Hana Sato|PERSON]] – WA [[WDLX7K92M4QB|US_DRIVER_LICENSE]]
- [[Derek Fitzgerald|PERSON]] – PA [[28 473 916|US_DRIVER_LICENSE]]

Vans are unit 14 and 22. Policy renews 1 July, premium quoted at $18,400.
"""),
T("""
[
  {"id": "[[EMP-3310|PERSONAL_ID]]", "name": "[[Zanele Dlamini|PERSON]]", "title": "Head of Sales", "email": "[[zanele.dlamini@kestrel.co.za|EMAIL]]", "mobile": "[[083 294 7718|PHONE]]", "office": "JHB-2"},
  {"id": "[[EMP-3311|PERSONAL_ID]]", "name": "[[Pieter van der Merwe|PERSON]]", "title": "Engineer", "email": "[[p.vdmerwe@kestrel.co.za|EMAIL]]", "mobile": "[[+27 72 418 0093|PHONE]]", "office": "CPT-1"},
  {"id": "[[EMP-3315|PERSONAL_ID]]", "name": "[[Naledi Khumalo|PERSON]]", "title": "Analyst", "email": "[[naledi.k@kestrel.co.za|EMAIL]]", "mobile": "[[0614452209|PHONE]]", "office": "JHB-2"}
]
"""),
T("""
Application for housing – London Borough of Hackney

Lead applicant: [[Kwabena Asante|PERSON]]
National Insurance number: [[HT085703A|UK_NINO]]
NHS number: [[904 033 4749|UK_NHS]]
Date of birth: [[3 January 1986|DATE_OF_BIRTH]]
Current address: [[Flat 9, Trelawney Estate, 12 Paragon Road|STREET_ADDRESS]], [[E9 6NS|POSTCODE]]
Household: 2 adults, 3 children (ages 11, 7 and 2)
Contact: [[07700 900588|PHONE]], [[kasante86@hotmail.co.uk|EMAIL]]
Housing register reference: HR/2024/004417
"""),
T("""
Invoice #INV-0219 — [[Ines Duarte|PERSON]], Illustration
Client: Brightline Studio Ltd (VAT GB 294 1187 04)
Date: 30/04/2024 · Due: 30/05/2024

Book cover artwork, 2 rounds of revisions ........ €1,800.00
Usage licence, 5 years ........................... €600.00
Total ............................................ €2,400.00

Payment: [[PT59 2263 0094 9299 8193 4278 4|IBAN]] ([[Ines Duarte|PERSON]])
Questions: [[ines@inesduarte.pt|EMAIL]] · [[+351 912 480 337|PHONE]]
"""),
T("""
INVITATION LETTER

To the Visa Section, Embassy of the United Kingdom, Beijing

I, [[Oliver Bennett|PERSON]], of [[14 Park Terrace|STREET_ADDRESS]], Cambridge [[CB1 1JH|POSTCODE]], invite my colleague Dr [[Zhang Lei|PERSON]] (passport no. [[E58276391|PASSPORT]], date of birth [[21 May 1981|DATE_OF_BIRTH]]) to attend the Materials Science Workshop at the University of Cambridge from 10 to 21 September 2024. All costs will be covered by grant EP/X012345/1.

Yours faithfully,
[[Oliver Bennett|PERSON]]
"""),
T("""
予約確認 / Reservation confirmed – Hotel Gracery Shinjuku
Guest: [[KIM MINSEO|PERSON]]
Passport: [[M48291736|PASSPORT]] (Republic of Korea)
Nationality: KOR · Check-in 2024-10-02 · 3 nights · Room type: Standard Double
Confirmation no.: 6613920047
Guest 2: [[PARK JIHOON|PERSON]], passport [[M71830294|PASSPORT]]
"""),
T("""
Offer of Employment – Confidential

Dear [[Vikram Nair|PERSON]],

We are pleased to offer you the role of Senior Engineer (Grade E4) at our Pune office, with a CTC of ₹38,50,000 per annum, effective 1 August 2024.

Please bring the following on your joining day: original passport ([[J8369854|PASSPORT]]), PAN card ([[VXQPT9098Y|NATIONAL_ID]]) and Aadhaar ([[7237-0996-5885|NATIONAL_ID]]). Your employee code will be [[PN-77412|PERSONAL_ID]].

Regards,
[[Shalini Menon|PERSON]], HR Business Partner
"""),
T("""
Oi [[Camila|PERSON]], tudo bem?

Segue os dados pra você fazer o reembolso da viagem:
Nome: [[Rafael Cunha Lima|PERSON]]
CPF: [[372.303.723-21|NATIONAL_ID]]
Chave PIX (celular): [[+55 21 99634-7718|PHONE]]
Valor: R$ 1.284,50 (passagem + 2 diárias)

Valeu! Abraço, [[Rafa|PERSON]]
"""),
]

PII += [
T("""
Hi [[Siobhán|PERSON]],

Thanks for viewing the apartment. To secure it please transfer the deposit (€2,100) and first month's rent (€2,100) to:

Account name: [[Declan Moriarty|PERSON]]
IBAN: [[IE47 AIBK 2982 3126 5036 35|IBAN]]
BIC: AIBKIE2D

The address for your bank's records is [[Apartment 14, 3 Grand Canal Quay|STREET_ADDRESS]], Dublin 2, [[D02 X285|POSTCODE]]. Call me on [[+353 87 418 2296|PHONE]] once it's sent.

Kind regards,
[[Declan|PERSON]]
"""),
T("""
Bonjour [[Lotte|PERSON]],

Voici mes coordonnées bancaires pour la facture FA-2024-031 (traduction NL>FR, 14 200 mots, 1 988,00 € HTVA) :
Titulaire : [[Arnaud Peeters|PERSON]]
IBAN : [[BE34 1892 6123 8990|IBAN]]
Adresse : [[Rue Haute 112|STREET_ADDRESS]], [[1000|POSTCODE]] Bruxelles

Merci d'avance,
[[Arnaud|PERSON]]
"""),
T("""
Personalblatt – Lohnbuchhaltung (Zürich)
Name, Vorname: [[Meier|PERSON]], [[Lukas|PERSON]]
AHV-Nr.: [[756.3982.5979.11|NATIONAL_ID]]
Geburtsdatum: [[08.02.1984|DATE_OF_BIRTH]]
Adresse: [[Langstrasse 88|STREET_ADDRESS]], [[8004|POSTCODE]] Zürich
Lohnkonto: [[CH60 3262 5625 6801 9547 3|IBAN]]
Pensum: 80 %, Eintritt 01.09.2024, Lohnklasse 14
"""),
T("""
APPLICANT
  Full legal name ........ [[Brandon Michael Tate|PERSON]]
  Social Security No. .... [[358957965|US_SSN]]
  Date of birth .......... [[12/01/1990|DATE_OF_BIRTH]]
  U.S. passport no. ...... [[A02947183|PASSPORT]]
  Driver license ......... TX [[40971835|US_DRIVER_LICENSE]]
  Mailing address ........ [[5410 19th St|STREET_ADDRESS]], Lubbock, TX [[79408|POSTCODE]]
  Phone .................. [[806-482-3391|PHONE]]
  Loan amount ............ $24,500 · Term 60 mo · APR 7.49%
"""),
T("""
DISCHARGE SUMMARY – Ward 7B, Royal Infirmary

Name: [[Fergus McLeod|PERSON]]    NHS No: [[603 405 1215|UK_NHS]]    Unit No: [[K482917|MEDICAL_RECORD]]
DOB: [[19/09/1957|DATE_OF_BIRTH]]    Admitted 02/05/2024 – Discharged 09/05/2024
Consultant: Dr [[A. Mahmood|PERSON]]
Diagnosis: community-acquired pneumonia (CURB-65 = 2)
Follow-up: GP review in 2 weeks; repeat CXR in 6 weeks.
Next of kin: [[Isobel McLeod|PERSON]] (daughter), [[0131 496 0622|PHONE]]
"""),
T("""
Rx – CVS Pharmacy #08817
Patient: [[Eleanor Whitaker|PERSON]]   DOB: [[10/03/1941|DATE_OF_BIRTH]]
Patient ID / MRN: [[PT-00739182|MEDICAL_RECORD]]
Address: [[77 Harbor View Dr|STREET_ADDRESS]], Mystic, CT [[06355|POSTCODE]]
Rx #6102847: Atorvastatin 20 mg, take 1 tablet by mouth at bedtime, qty 90, refills 3
Prescriber: [[Samuel Adeyemi|PERSON]], MD
"""),
T("""
Demande de remboursement – Mutuelle Harmonie
Adhérent : [[Nathalie Rousseau|PERSON]]
N° de sécurité sociale : [[288083602806745|NATIONAL_ID]]
N° adhérent : [[HM-4829173|PERSONAL_ID]]
Né(e) le : [[14/08/1988|DATE_OF_BIRTH]]
Adresse : [[5 place du Marché|STREET_ADDRESS]], [[36000|POSTCODE]] Châteauroux
RIB pour le virement : [[FR96 1201 7015 2397 5921 7416 788|IBAN]]
Montant des soins : 145,00 € (dentiste, 12/03/2024), remboursé Sécu : 70 %
"""),
T("""
Tessera sanitaria – dati del titolare
Cognome: [[BIANCHI|PERSON]]
Nome: [[LORENZO|PERSON]]
Codice fiscale: [[BNCLNZ87T09F205C|NATIONAL_ID]]
Data di nascita: [[09/12/1987|DATE_OF_BIRTH]] – Milano (MI)
Scadenza tessera: 31/12/2029
Medico di base: dott. [[Carlo Rinaldi|PERSON]]
"""),
T("""
Inscripción Club de Pádel Las Rozas – temporada 2024/25
Socio: [[Alba Jiménez Ruiz|PERSON]] · DNI [[54948664P|NATIONAL_ID]]
Socio 2: [[Marc Puig Soler|PERSON]] · DNI [[12675738 R|NATIONAL_ID]]
Teléfono: [[655 31 82 49|PHONE]] · Email: [[alba.jr@hotmail.es|EMAIL]]
Domiciliación: [[ES47 0753 1690 9599 6149 4256|IBAN]]
Cuota: 62 €/mes por pareja · Pista 4 los martes 20:30
"""),
T("""
Antrag auf Zulassung eines Fahrzeugs – Landeshauptstadt München
Halterin: [[Franziska Huber|PERSON]], geb. [[17.06.1979|DATE_OF_BIRTH]]
Anschrift: [[Leopoldstraße 201|STREET_ADDRESS]], [[80804|POSTCODE]] München
Steuer-ID: [[60968635125|NATIONAL_ID]]
FIN: [[5YJ01BC36RE200853|VIN]]
Wunschkennzeichen: [[M-FH 1706|LICENSE_PLATE]]
SEPA-Mandat Kfz-Steuer: [[DE10 9098 1729 0084 0643 07|IBAN]]
Gebühr: 31,10 €
"""),
T("""
Belastingdienst – voorlopige aanslag 2024
Aan: [[J.P. Hendriks|PERSON]]
BSN: [[3956.01.721|NATIONAL_ID]]
Adres: [[Oudegracht 147|STREET_ADDRESS]], [[3511 AZ|POSTCODE]] Utrecht
Te ontvangen: € 1.284 in 11 maandelijkse termijnen op rekening [[NL89 ABNA 1662 3681 77|IBAN]]
Kenmerk: 2024.01.118.447
"""),
T("""
Dane pracownika do umowy o pracę
Imię i nazwisko: [[Katarzyna Lewandowska|PERSON]]
PESEL: [[920806 32860|NATIONAL_ID]]
Data urodzenia: [[06.08.1992|DATE_OF_BIRTH]]
Adres: [[ul. Piotrkowska 112 m. 4|STREET_ADDRESS]], [[90-006|POSTCODE]] Łódź
Numer rachunku: [[PL 19 1984 5702 7424 3979 1756 6899|IBAN]]
Stanowisko: Księgowa, wynagrodzenie 7 800 zł brutto, NIP firmy 725-18-01-126
"""),
T("""
Försäkringskassan – anmälan om föräldrapenning
Förälder: [[Johan Lindberg|PERSON]], personnummer [[19631115-7595|NATIONAL_ID]]
Barn: [[Wilma Lindberg|PERSON]], [[20230314-2380|NATIONAL_ID]]
Period: 2024-06-01 – 2024-08-31, 100 %
Utbetalning till konto: Swedbank 8327-9, [[914 482 731-6|US_BANK_NUMBER]]
Telefon: [[+46 8 482 913 70|PHONE]]
"""),
T("""
PAYSLIP – May 2024 · Kestrel Logistics (Pty) Ltd
Employee: [[Lerato Mahlangu|PERSON]]   Employee no: [[KL-00417|PERSONAL_ID]]
ID number: [[8905103050086|NATIONAL_ID]]
Bank: FNB, account [[62849173015|US_BANK_NUMBER]]
Basic salary R 24 500,00 · UIF R 245,00 · PAYE R 3 118,20 · Net R 21 136,80
"""),
T("""
[[Hyun-woo Choi|PERSON]] 고객님, 대출 신청서 확인 부탁드립니다.
- 성명: [[최현우|PERSON]]
- 주민등록번호: [[700119-2760008|NATIONAL_ID]]
- 휴대전화: [[+82 10 4471 2093|PHONE]]
- 직장: 삼성전자 (재직 12년)
- 신청 금액: 50,000,000원 / 금리 4.3%
문의: 담당자 [[정다은|PERSON]] 대리 ([[02-3148-2291|PHONE]])
"""),
T("""
From: 人事部 [[山本|PERSON]]
To: [[Daniel Schmidt|PERSON]]
Subject: マイナンバー提出のお願い / My Number submission

[[Schmidt|PERSON]]-san, for the year-end tax adjustment please confirm the details below by 11/15:
Name: [[Daniel Schmidt|PERSON]]
My Number: [[5774 9788 9850|NATIONAL_ID]]
Residence card no.: [[UH48291736EA|NATIONAL_ID]]
Address: 〒[[160-0022|POSTCODE]] 東京都新宿区[[新宿3-14-1|STREET_ADDRESS]]
"""),
]

PII += [
T("""
房屋租赁合同（摘要）
出租方：[[陈建国|PERSON]]
承租方：[[刘婷|PERSON]]，身份证号码 [[510107199504178162|NATIONAL_ID]]，联系电话 [[+86 138 8046 2291|PHONE]]
房屋地址：成都市武侯区[[人民南路四段27号|STREET_ADDRESS]]3栋1201
租金：每月 3,800 元，押一付三，租期 2024年7月1日至2025年6月30日
"""),
T("""
Raffles Medical – New Patient Registration
Name (as in NRIC): [[Muhammad Faris bin Abdullah|PERSON]]
NRIC/FIN: [[S4912270E|NATIONAL_ID]]
Date of birth: [[02-11-1949|DATE_OF_BIRTH]]
Address: [[38 Jalan Bukit Merah|STREET_ADDRESS]], Singapore [[169853|POSTCODE]]
Contact: [[6225 8841|PHONE]] (home), [[9733 0184|PHONE]] (mobile, son [[Hakim|PERSON]])
Drug allergies: nil · Queue no. 117 · Consultation fee S$42.80
"""),
T("""
Hi [[Mei|PERSON]],

For the 2023 return I need a couple of things from you:
- your SIN ([[506 779 891|NATIONAL_ID]] is what I have on file, please confirm)
- the T4 from Shopify and the RRSP receipt (contribution $6,500)
- your new address: [[88 Harbour Sq, Suite 2204|STREET_ADDRESS]], Toronto ON [[M5J 2L1|POSTCODE]]

CRA business number for my practice is 84729 1035 RT0001 if the form asks for the preparer.

Thanks,
[[Gurpreet Sandhu|PERSON]], CPA
[[416-482-9033|PHONE]]
"""),
T("""
Super rollover request – Hostplus
Member name: [[Chloe Nguyen|PERSON]]
Member number: [[20484913|PERSONAL_ID]]
TFN: [[641247056|NATIONAL_ID]]
Date of birth: [[27/02/1996|DATE_OF_BIRTH]]
Residential address: [[3/17 Brunswick St|STREET_ADDRESS]], Fitzroy VIC [[3065|POSTCODE]]
Mobile: [[+61 423 918 207|PHONE]]
Rollover amount: entire balance (approx. $38,200) from fund USI 35012345678001
"""),
T("""
Deal confirmed ✅
Buyer pays 0.75 BTC at 61,420 USD/BTC = 46,065.00 USD
Send BTC to escrow address: [[3CFcdDNXyVsVh831dZ4yjRJqdTxE3a377u|CRYPTO]]
Seller releases USD to Wise account holder [[Ravi Menon|PERSON]], account [[GB24 HBUK 5613 6644 4278 77|IBAN]]
Trade ID #OTC-0514-882 · window 30 min · 3 confirmations required
"""),
T("""
RENTAL AGREEMENT – Hertz, Orlando International (MCO)
Renter: [[Jasmine Carter|PERSON]]   DOB: [[06/30/1988|DATE_OF_BIRTH]]
Driver license: GA [[058214736|US_DRIVER_LICENSE]]   exp 06/30/2028
Additional driver: [[Kevin Carter|PERSON]], GA [[047193582|US_DRIVER_LICENSE]]
Vehicle: 2025 Hyundai Tucson, VIN [[KMH2NDVJ7S0677998|VIN]], FL plate [[QWE R47|LICENSE_PLATE]], fuel 8/8, mileage 12,044
Payment: Mastercard [[5533 8260 6058 6511|CREDIT_CARD]]
Pickup 05/18 10:15 AM · Return 05/25 10:00 AM · Est. total $612.37
"""),
T("""
電話注文メモ（5/21 14:05 受付・担当 [[小林|PERSON]]）
お客様：[[高橋 健一|PERSON]] 様
お届け先：〒[[530-0001|POSTCODE]] 大阪府大阪市北区[[梅田1-3-1|STREET_ADDRESS]]
電話：[[06-6345-1122|PHONE]]
カード：JCB [[3532-7962-2490-8073|CREDIT_CARD]]（有効期限 08/27）
商品：特選和牛セット ×2（品番 WG-2210）合計 ¥32,400
"""),
T("""
Your e-ticket itinerary
Passenger: [[HOLLOWAY|PERSON]]/[[SARAH|PERSON]] MS
Booking ref: QF7K2L · E-ticket no. 176 2849173650
EK 29  LHR 14:35 → DXB 00:40+1  Terminal 3, gate B12, seat 41C
EK 412 DXB 03:05 → SYD 22:45   seat 52A
Baggage allowance 30 kg · Bag tag EK 482917 · Skywards tier: Silver
"""),
T("""
Release notes – FleetOS 10.4.2 (build 10.0.19045.4291)
- Fixed a crash when importing routes larger than 2,048 waypoints (#4417)
- Map tiles now cached for 72 h (was 24 h); cache size capped at 1.5 GB
- TLS 1.3 enabled by default; minimum supported Android version is 8.1
- Default NTP server changed to the regional pool
Thanks to [[Amina Yusuf|PERSON]] for the report and to [[Dong-hyun|PERSON]] for the patch.
Upgrade window: Sunday 02:00–04:00 UTC, expected downtime < 5%.
"""),
T("""
Date        Description                                   Amount      Balance
02/05/2024  CARD PAYMENT TESCO STORES 2291 *4465           -42.18     1,204.77
03/05/2024  TFR TO [[A MURPHY|PERSON]] [[GB24HBUK56136644427877|IBAN]] RENT   -850.00       354.77
03/05/2024  DD THAMES WATER 0048213                       -38.50       316.27
06/05/2024  SALARY BRIGHTWELL LTD                       +2,418.66     2,734.93
"""),
T("""
Mortgage application – applicant 1
Title: Mr   Forename(s): [[Daniel James|PERSON]]   Surname: [[Okoro|PERSON]]
Date of birth: [[15/07/1987|DATE_OF_BIRTH]]
National Insurance number: [[JG 41 92 77 C|UK_NINO]]
NHS number (for life cover medical): [[918 324 1124|UK_NHS]]
Address: [[64 Elmhurst Gardens|STREET_ADDRESS]], Reading [[RG1 5HD|POSTCODE]] (since 2019)
Gross income: £62,000 · Deposit: £45,000 (15%) · Term: 30 years
Current account: Barclays [[20-77-14|UK_SORT_CODE]] [[60384721|US_BANK_NUMBER]]
"""),
T("""
Form I-9, Section 2 – verified by [[Tanya Brooks|PERSON]] (HR), 06/03/2024
Employee: [[Ricardo Alves|PERSON]]
SSN: [[355-24-8018|US_SSN]]
List A document: U.S. Passport, no. [[568214937|PASSPORT]], exp. 11/09/2031
Employee ID: [[100482|PERSONAL_ID]] · Start date: 06/10/2024 · Location: Store 0417, Newark
"""),
T("""
hey [[@marco|HANDLE]] the deploy job is failing on auth, here's the runner output:

  Run actions/checkout@v4
  Using GITHUB_TOKEN=[[ghp_7Hq2LmX9vR4tK1sPz8Ya3Wc6Nd0Fb5Ej2GuK|PASSWORD]]
  curl -u deploy:[[Tr0ub4dor&3|PASSWORD]] [[https://artifacts.internal.example.net/api/v1/upload|URL]]
  HTTP 401 Unauthorized (request id 8f21c4d0)

should i just regenerate the token? version is still 2.9.14
"""),
T("""
Support case 00482177 – router setup
Customer: [[Ahmed El-Sayed|PERSON]] ([[ahmed.elsayed@outlook.com|EMAIL]])
Device: TP-Link Archer AX55, serial 22394A8004411, firmware 1.1.4 Build 20230927
WAN MAC: [[50-91-E3-2A-7C-18|MAC_ADDRESS]] · LAN IP: [[192.168.0.1|IP]]
Admin login reset to: admin / [[Nile#Cairo77|PASSWORD]]
Wi-Fi SSID: Archer_5G_4411 · WPA2 key: [[sunflower-harbor-42|PASSWORD]]
Customer asked to change both after the call.
"""),
T("""
FICHA DE INSCRIPCIÓN – Colegio Cervantes, ciclo 2024-2025
Padre/tutor: [[Rodrigo Rojas Fernández|PERSON]]
CURP del tutor: [[ROFR730807HJCJRC09|NATIONAL_ID]]
Alumna: [[Valentina Rojas|PERSON]], 3° de primaria, matrícula [[A-2024-0817|PERSONAL_ID]]
Domicilio: [[Av. Chapultepec 480, int. 12|STREET_ADDRESS]], Col. Americana, C.P. [[44160|POSTCODE]], Guadalajara
Teléfono: [[33 1482 9713|PHONE]] · Colegiatura: $3,950 mensuales
"""),
T("""
Card details for the conference registration (please delete after processing):
Visa [[4516 5614 0532 3528|CREDIT_CARD]], exp 04/27, CVV [[912|PASSWORD]], cardholder [[Ewa Nowicka|PERSON]]
If that one is declined use the company Mastercard [[2221-6750-1992-0451|CREDIT_CARD]] (held by [[Tomás Herrera|PERSON]]).
Registration fee €890 + €120 workshop, PO number 4500018273.
"""),
]

CHAT += [
T("""
[[Chioma|PERSON]]: ok the dinner came to £186, that's £31 each
[[Chioma|PERSON]]: pay me here pls [[https://paypal.me/ChiomaOkafor|URL]] or bank is fine
[[Ronan|PERSON]]: sent 👍
[[Mei Ling|PERSON]]: sent! also here's the photos from last night [[https://photos.app.goo.gl/Xq8bT2LmNc4Rz7Vd9|URL]]
[[Ronan|PERSON]]: deleting the one of me and [[tobi|PERSON]] doing karaoke immediately
[[Tobi|PERSON]]: NO it's iconic 😂
"""),
T("""
[14:58] [[liz.okoro|HANDLE]]: zoom for the 3pm is here [[https://us02web.zoom.us/j/84721930554|URL]] passcode [[Tq7uF2|PASSWORD]]
[14:59] [[nikos_p|HANDLE]]: thx. is [[bogdan|PERSON]] joining? he has the budget numbers
[15:00] [[liz.okoro|HANDLE]]: yes + [[grace|PERSON]] from finance. we're at the office btw, pin here if anyone wants to come in person: [[https://maps.app.goo.gl/3kT9vQxR2mWz|URL]]
[15:01] [[nikos_p|HANDLE]]: remote today, kid's sick 🤒
"""),
]

PII += [
T("""
About me
I'm [[Aisha Bello|PERSON]], a product designer based in Abuja, previously at Paystack and Andela.
Portfolio: [[aishabello.design|URL]]
LinkedIn: [[https://www.linkedin.com/in/aisha-bello-5a2b91/|URL]]
Dribbble: [[dribbble.com/aishab|URL]] · Twitter/X: [[@aishadesigns|HANDLE]]
Contact: [[hello@aishabello.design|EMAIL]]
Available from Q3 2024, day rate on request.
"""),
T("""
Site survey – telecom mast replacement, batch 7
Site A (Hampstead): [[51°33'39.2"N 0°10'37.8"W|COORDINATES]], access via service road, key holder Mr [[Pearce|PERSON]]
Site B (Bondi): [[-33.89145, 151.27436|COORDINATES]], rooftop, 14 floors, lift to level 13 only
Site C (Manhattan): lat/long [[40.7128,-74.0060|COORDINATES]], mast height 18.5 m, 3 sector antennas
Crew lead: [[Owen Gallagher|PERSON]] · Permit ref PW-2024-1187 · Weather hold if wind > 40 km/h
"""),
T("""
Form W-2 Wage and Tax Statement 2023 (copy for employee)
a  Employee's social security number: [[144-13-8340|US_SSN]]
b  Employer identification number (EIN): 84-1927365
c  Employer: Greenleaf Grocers Inc., [[400 Commerce Way|STREET_ADDRESS]], Columbus, OH [[43215|POSTCODE]]
e  Employee: [[Angela M. Russo|PERSON]]
f  Employee's address: [[1187 Maple Ridge Dr|STREET_ADDRESS]], Westerville, OH [[43081|POSTCODE]]
1  Wages, tips, other compensation: 51,284.16    2  Federal income tax withheld: 5,917.40
Spouse (joint return worksheet): [[Vincent Russo|PERSON]], SSN [[105 12 5389|US_SSN]]
"""),
T("""
Dear Mr [[Achterberg|PERSON]],

Your appointment at the Diabetes Eye Screening clinic is on Tuesday 18 June at 10:40, Room 3, Outpatients Building B.

Please bring this letter and your glasses. Your details:
NHS number: [[4359521855|UK_NHS]]
Hospital number: [[N0294817|MEDICAL_RECORD]]
Date of birth: [[30 November 1962|DATE_OF_BIRTH]]

Your pupils will be dilated, so do not drive for 6 hours afterwards. To rearrange call [[0300 123 4471|PHONE]].
"""),
T("""
Fraud report – cards used on the compromised checkout (do not forward outside the security team)

1. [[6011 2135 5776 0140|CREDIT_CARD]]  Discover   holder [[J. Whitmore|PERSON]]     3 txns, $2,418.00
2. [[5369159564190690|CREDIT_CARD]]     Mastercard holder [[Li Qiang|PERSON]]        1 txn,  $89.99
3. [[4549-1210-3503-4465|CREDIT_CARD]]  Visa       holder [[Adaeze Nwosu|PERSON]]    5 txns, $612.50
4. [[3438 058033 55864|CREDIT_CARD]]    Amex       holder [[Pedro Alvarenga|PERSON]] 2 txns, $1,150.00

All originated from session cookies issued between 02:10 and 02:47 UTC. Merchant ID 88120934 notified. Ticket SEC-2291.
"""),
T("""
ED TRIAGE NOTE – 04/06/2024 23:14
Pt: [[Kowalski|PERSON]], [[Marta|PERSON]]   F   DOB [[1971-05-12|DATE_OF_BIRTH]]   MRN [[4820193-7|MEDICAL_RECORD]]
PC: chest pain radiating to L arm x 2 h. Obs: HR 112, BP 160/98, SpO2 95% RA, T 37.1
ECG: sinus tachy, no ST elevation. Triage cat 2 → Resus bay 4.
Brought in by husband [[Jan|PERSON]] ([[07700 900862|PHONE]]). Registered vehicle in ambulance bay: [[BK21 NWU|LICENSE_PLATE]]
"""),
T("""
SAFETY RECALL NOTICE – NHTSA Campaign 24V-118

Dear [[Omar Haddad|PERSON]],

Our records show that your vehicle, VIN [[5YJF77NZ6SJ071615|VIN]], registered at [[2710 Lakeshore Blvd|STREET_ADDRESS]], Oakland, CA [[94606|POSTCODE]], may be affected by this recall (rear-view camera image delay, part no. 1587449-00-C).

Please schedule a free over-the-air update or service visit at [[https://www.tesla.com/support/recall|URL]]. Remedy is expected to take 45 minutes.
"""),
]


# ---------------------------------------------------------------------------
# conversion + checks
# ---------------------------------------------------------------------------
def strip_markup(marked):
    out, spans, pos = [], [], 0
    for m in MARK.finditer(marked):
        out.append(marked[pos:m.start()])
        start = sum(len(x) for x in out)
        surface, label = m.group(1), m.group(2)
        if label not in LABELS:
            raise ValueError(f"unknown label {label!r} in {marked[:60]!r}")
        if surface != surface.strip():
            raise ValueError(f"span has outer whitespace: {surface!r}")
        out.append(surface)
        spans.append([start, start + len(surface), label, surface])
        pos = m.end()
    out.append(marked[pos:])
    text = "".join(out)
    for bad in ("[[", "]]", "|PERSON", "|PHONE"):
        if bad in text:
            raise ValueError(f"leftover markup {bad!r} in {text[:80]!r}")
    for s, e, _label, surface in spans:
        assert text[s:e] == surface, (text[s:e], surface)
    return text, spans


# --- checksum re-validation ------------------------------------------------
def _digits(s):
    return re.sub(r"\D", "", s)


def luhn_ok(num):
    d = [int(c) for c in num][::-1]
    tot = sum(d[0::2]) + sum(sum(divmod(2 * x, 10)) for x in d[1::2])
    return tot % 10 == 0


def iban_ok(s):
    s = re.sub(r"[\s-]", "", s).upper()
    r = s[4:] + s[:4]
    return int("".join(str(int(c, 36)) for c in r)) % 97 == 1


_VIN_T = {**{str(i): i for i in range(10)}, **dict(zip("ABCDEFGH", range(1, 9))),
          **dict(zip("JKLMN", range(1, 6))), "P": 7, "R": 9,
          **dict(zip("STUVWXYZ", range(2, 10)))}


def vin_ok(v):
    w = [8, 7, 6, 5, 4, 3, 2, 10, 0, 9, 8, 7, 6, 5, 4, 3, 2]
    if len(v) != 17 or any(c not in _VIN_T for c in v):
        return False
    s = sum(_VIN_T[c] * x for c, x in zip(v, w)) % 11
    return v[8] == ("X" if s == 10 else str(s))


def nric_ok(v):
    v = v.upper()
    if not re.fullmatch(r"[STFG]\d{7}[A-Z]", v):
        return False
    s = sum(int(a) * b for a, b in zip(v[1:8], [2, 7, 6, 5, 4, 3, 2]))
    if v[0] in "TG":
        s += 4
    tbl = "JZIHGFEDCBA" if v[0] in "ST" else "XWUTRQPNMLK"
    return tbl[s % 11] == v[-1]


def clabe_ok(v):
    d = _digits(v)
    if len(d) != 18:
        return False
    w = [3, 7, 1] * 6
    s = sum((int(c) * w[i]) % 10 for i, c in enumerate(d[:17]))
    return str((10 - s % 10) % 10) == d[17]


try:
    import stdnum  # noqa: F401
    from stdnum import bitcoin
    from stdnum.au import tfn
    from stdnum.br import cpf
    from stdnum.ca import sin
    from stdnum.ch import ssn as ch_ssn
    from stdnum.cn import ric
    from stdnum.de import idnr
    from stdnum.es import dni, nie
    from stdnum.fr import nir
    from stdnum.gb import nhs as gb_nhs
    from stdnum.in_ import aadhaar, pan
    from stdnum.it import codicefiscale
    from stdnum.jp import in_ as jp_in
    from stdnum.kr import rrn
    from stdnum.mx import curp
    from stdnum.nl import bsn
    from stdnum.pl import pesel
    from stdnum.se import personnummer
    from stdnum.us import ssn as us_ssn
    from stdnum.za import idnr as za_idnr
    NATIONAL_VALIDATORS = [aadhaar, pan, dni, nie, codicefiscale, nir, cpf, ric,
                           sin, tfn, idnr, bsn, personnummer, pesel, za_idnr,
                           curp, rrn, jp_in, ch_ssn]
    HAVE_STDNUM = True
except ImportError:  # the build still works, with fewer checks
    HAVE_STDNUM = False
    NATIONAL_VALIDATORS = []

# national IDs with no public checksum (format-only); listed so the report is honest
NO_CHECKSUM_NATIONAL = {"48291736550", "UH48291736EA"}


def check_value(label, surface):
    """Return None if fine / not checkable, else a message."""
    if label == "CREDIT_CARD":
        d = _digits(surface)
        return None if 13 <= len(d) <= 19 and luhn_ok(d) else "bad Luhn"
    if label == "IBAN":
        return None if iban_ok(surface) else "bad IBAN mod-97"
    if label == "VIN":
        return None if vin_ok(surface) else "bad VIN check digit"
    if label == "UK_NHS" and HAVE_STDNUM:
        return None if gb_nhs.is_valid(_digits(surface)) else "bad NHS mod-11"
    if label == "US_SSN" and HAVE_STDNUM:
        return None if us_ssn.is_valid(_digits(surface)) else "invalid SSN"
    if label == "CRYPTO" and HAVE_STDNUM:
        if surface.lower().startswith("0x"):
            return None if re.fullmatch(r"0x[0-9a-fA-F]{40}", surface) else "bad ETH"
        return None if bitcoin.is_valid(surface) else "bad BTC"
    if label == "NATIONAL_ID" and HAVE_STDNUM:
        if nric_ok(surface) or surface in NO_CHECKSUM_NATIONAL:
            return None
        for v in NATIONAL_VALIDATORS:
            try:
                if v.is_valid(surface):
                    return None
            except Exception:
                pass
        return "no national-ID validator accepts it"
    if label == "US_BANK_NUMBER" and len(_digits(surface)) == 18 and surface.isdigit():
        return None if clabe_ok(surface) else "bad CLABE check digit"
    return None


def main():
    records, problems = [], []
    for kind, items in (("chat", CHAT), ("pii", PII)):
        for marked in items:
            text, spans = strip_markup(marked)
            for _s, _e, label, surface in spans:
                msg = check_value(label, surface)
                if msg:
                    problems.append(f"{label} {surface!r}: {msg}")
            records.append({"text": text,
                            "spans": [[s, e, label] for s, e, label, _ in spans],
                            "kind": kind})
    texts = [r["text"] for r in records]
    dup = [t[:60] for t, c in Counter(texts).items() if c > 1]
    assert not dup, f"duplicate texts: {dup}"
    # spans must not overlap
    for r in records:
        sp = sorted(r["spans"])
        for a, b in itertools.pairwise(sp):
            assert a[1] <= b[0], f"overlapping spans {a} {b} in {r['text'][:60]!r}"
    if problems:
        print("CHECKSUM PROBLEMS:", *problems, sep="\n  ")
        sys.exit(1)
    out = Path(__file__).resolve().parents[1] / "textdp" / "evaluate" / "data" / "probe_chat_pii.jsonl"
    with out.open("w", encoding="utf-8") as f:
        for r in records:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    kinds = Counter(r["kind"] for r in records)
    labels = Counter(sp[2] for r in records for sp in r["spans"])
    by_kind_label = Counter((r["kind"], sp[2]) for r in records for sp in r["spans"])
    print(f"wrote {len(records)} texts to {out}")
    print("texts per kind:", dict(kinds))
    print(f"{'label':<20}{'total':>7}{'chat':>7}{'pii':>7}")
    for lab in sorted(LABELS, key=lambda x: (-labels[x], x)):
        print(f"{lab:<20}{labels[lab]:>7}{by_kind_label[('chat', lab)]:>7}"
              f"{by_kind_label[('pii', lab)]:>7}")
    print("total spans:", sum(labels.values()),
          "| stdnum checks:", "on" if HAVE_STDNUM else "off")


if __name__ == "__main__":
    main()
