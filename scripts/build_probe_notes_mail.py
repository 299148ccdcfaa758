#!/usr/bin/env python3
"""Build a held-out probe set for a person-name anonymiser.

Every text below is hand-written. Gold spans are given inline as
[[surface text|LABEL]]; this script strips the markup, records character
offsets (Python str / Unicode code-point offsets, end exclusive) into the
stripped text and writes textdp/evaluate/data/probe_notes_mail.jsonl (a dev sample of
textdp: `textdp evaluate detection --data textdp/evaluate/data/probe_notes_mail.jsonl`).

Annotation conventions
- PERSON covers only the name tokens: titles (Dr, Mr, Mrs, Ms, Nurse, RN, Capt,
  Fr, Hr, Officer, Agent) and credentials (MD, NP, PA-C, RN) are outside the span.
  Initials that belong to a name are inside ("J. Okafor", "Priya S.").
  A possessive 's is outside ("Dr. Rahman's" -> "Rahman").
- Eponymous diseases/signs/tests/devices (Parkinson's, Murphy's sign, Foley,
  Apgar, Whipple, pouch of Douglas, Word catheter, Baker's cyst ...), company
  names (Johnson & Johnson, Wells Fargo, Dell, McDonald's, Maersk, Siemens),
  product names and places named after people (Ho Chi Minh City, St. Luke's)
  are NOT PERSON.
- EMAIL / URL spans cover the whole address even when it contains a name; no
  PERSON span is nested inside them.
- AGE covers the age expression as written ("67 y/o", "54M", "82f",
  "67-year-old", "6 mo old"; bare number when written "Age: 61" / "age 5").
- DATE covers calendar dates incl. month-only and year-only references; weekday
  names alone and clock times are not marked.
- Usernames / account / customer / member / employee / interpreter / badge IDs
  are PERSONAL_ID; order, ticket, invoice, claim and case numbers are not marked.
- Organisations and nationalities/languages are not marked (no ORG label).
"""
import itertools
import json
import re
import sys
import unicodedata
from collections import Counter

OUT = str(__import__("pathlib").Path(__file__).resolve().parents[1] / "textdp" / "evaluate" / "data" / "probe_notes_mail.jsonl")
LABELS = {
    "PERSON", "EMAIL", "PHONE", "DATE_OF_BIRTH", "MEDICAL_RECORD", "DATE", "AGE",
    "STREET_ADDRESS", "POSTCODE", "GPE", "FAC", "PERSONAL_ID", "URL",
}

CLINICAL = []
SUPPORT = []

# ---------------------------------------------------------------------------
# CLINICAL
# ---------------------------------------------------------------------------

CLINICAL += [
"""PROGRESS NOTE - HOSPITAL DAY 3
Pt: [[Okonkwo, Chidinma|PERSON]]   MRN: [[00482913|MEDICAL_RECORD]]   DOB: [[04/11/1958|DATE_OF_BIRTH]]
Attending: Dr. [[Rafael Quintero|PERSON]]

S: [[67F|AGE]] w/ hx HTN, T2DM, CKD stage 3 admitted for CAP. Reports SOB improved, still c/o productive cough w/ yellow sputum. Slept ok. Daughter [[Ifeoma|PERSON]] at bedside overnight.
O: T 37.9 HR 92 BP 138/84 RR 20 SpO2 94% 2L NC
Gen: A&Ox3, NAD
Lungs: coarse crackles RLL, no wheeze
Labs: WBC 13.2 (from 16.8), Hgb 10.9, Cr 1.6 (baseline 1.4)
CXR [[3/9|DATE]]: RLL consolidation unchanged
A/P:
1. CAP - cont ceftriaxone/azithro day 3/5. Will repeat CXR in AM if febrile.
2. T2DM - holding metformin given AKI, SSI.
3. HTN - cont amlodipine, hold lisinopril until Cr back to baseline.
Dispo: hope to d/c home [[3/12|DATE]] w/ PO abx. PCP Dr. [[Grace Hill|PERSON]] notified.""",

"""DISCHARGE SUMMARY

Patient Name: [[Nguyen Thi Mai|PERSON]]
MRN: [[H7731052|MEDICAL_RECORD]]
Admission Date: [[02/14/2026|DATE]]   Discharge Date: [[02/19/2026|DATE]]
Attending Physician: [[Samuel Adeyemi|PERSON]], MD
Discharging Resident: [[Hannah Kowalczyk|PERSON]], DO

Principal Diagnosis: Acute cholecystitis
Secondary: Hashimoto's thyroiditis, GERD

HOSPITAL COURSE:
[[52 y/o|AGE]] female presented to [[Mercy General Hospital|FAC]] ED w/ RUQ pain x2 days, N/V. Murphy's sign positive on exam. RUQ US showed gallbladder wall thickening w/ pericholecystic fluid. Surgery (Dr. [[Brooks|PERSON]]) consulted, pt underwent lap chole on HD2 without complication. JP drain removed POD1. Tolerating regular diet at d/c.

DISCHARGE MEDICATIONS:
- levothyroxine 75 mcg PO daily (home med, unchanged)
- omeprazole 20 mg PO daily
- oxycodone 5 mg PO q6h PRN severe pain, #10
- Tylenol 650 mg PO q6h PRN

FOLLOW-UP: General surgery clinic in 2 wks. PCP Dr. [[Faith Moody|PERSON]] within 1 wk.
Pt's son [[Tuan|PERSON]] will drive her home; he was present for d/c teaching.""",

"""0300 pt resting in bed, easily arousable, a&ox3. c/o 4/10 L knee pain, tylenol 1g po given per prn order. foley draining clear yellow urine, 350 ml since 2300. pt's wife [[rose|PERSON]] called to check in, updated on plan. bed alarm on, call light within reach. - [[j. baker|PERSON]] rn""",

"""TRIAGE NOTE  [[03/02/2026|DATE]] 14:22
[[34M|AGE]] BIBA after MVC, restrained driver, +airbag deployment. c/o neck pain & R wrist pain. GCS 15. Denies LOC. NKDA. Hx: asthma (albuterol PRN).
Vitals: BP 142/90 HR 104 RR 18 SpO2 99% RA T 36.8
C-collar in place on arrival, pt ambulatory at scene per EMS.
ESI 3. To Room 14. Triage RN: [[Mason Oduya|PERSON]]""",

"""[[Westbrook Family Practice|FAC]]
[[218 Harrowgate Road|STREET_ADDRESS]]
[[Leeds|GPE]] [[LS7 4NJ|POSTCODE]]
Tel: [[0113 496 0721|PHONE]]

[[11 March 2026|DATE]]

Dear Dr [[Mukherjee|PERSON]],

Re: Mr [[Tomasz Wiśniewski|PERSON]], DOB [[22/08/1961|DATE_OF_BIRTH]], NHS No. [[485 777 3456|MEDICAL_RECORD]]
[[44 Cardigan Lane|STREET_ADDRESS]], [[Leeds|GPE]] [[LS6 1EF|POSTCODE]]

Thank you for seeing this [[64 year old|AGE]] gentleman who I suspect has early Parkinson's disease. Over the last 6 months his wife [[Halina|PERSON]] has noticed a resting tremor of his right hand, reduced arm swing and a softer voice. On examination there is cogwheel rigidity at the right wrist and mild bradykinesia. Romberg negative. No cerebellar signs.

PMH: T2DM (diet controlled), hypercholesterolaemia, L inguinal hernia repair 2009.
Meds: atorvastatin 20mg nocte.

I would be grateful for your assessment and consideration of a DaTscan. He is keen to continue driving and I have advised him to inform the DVLA once a diagnosis is made.

Yours sincerely,

Dr [[Aoife Brennan|PERSON]]
GP Partner""",

"""EXAM: CT ABDOMEN/PELVIS W/ CONTRAST
CLINICAL HX: [[41F|AGE]] RLQ pain, r/o appendicitis. Hx Crohn's disease.
COMPARISON: None.
FINDINGS: Wall thickening of the terminal ileum over ~12 cm w/ mucosal hyperenhancement and comb sign, c/w active Crohn's. Appendix normal in caliber. No abscess or free air. 4 mm nonobstructing stone in L lower pole kidney.
IMPRESSION:
1. Active terminal ileitis, consistent w/ known Crohn's disease. No abscess.
2. Normal appendix.
3. Nonobstructing L renal stone.
Dictated by: [[Yusuf Demir|PERSON]], MD   Signed [[03/05/2026|DATE]] 16:47""",

"""LAB RESULTS - [[Cook, Summer|PERSON]]  MRN [[55120934|MEDICAL_RECORD]]  DOB [[06/30/1990|DATE_OF_BIRTH]]
Collected: [[03/08/26|DATE]] 07:15
TSH 8.9 (H)   Free T4 0.7 (L)
Anti-TPO Ab 412 (H)
Comment: findings consistent w/ Hashimoto's thyroiditis. Results called to [[Carol|PERSON]] at Dr. [[Rahman|PERSON]]'s office 10:40, read back confirmed.""",

"""CURRENT MEDICATIONS (reconciled w/ pt and wife [[Dawn|PERSON]] [[1/22/26|DATE]]):
metformin 1000 mg PO BID
lisinopril 20 mg PO daily
Eliquis 5 mg PO BID - for afib, pt states he sometimes misses PM dose
atorvastatin 40 mg PO qHS
carbidopa-levodopa 25/100 1 tab PO TID (Parkinson's, per neuro Dr. [[Hye-jin Park|PERSON]])
Tylenol 500 mg 2 tabs PO q6h PRN pain
NO NSAIDs - on anticoagulation
Allergies: sulfa (rash), PCN (hives)""",

"""S: [[8 y/o|AGE]] M brought in by mom ([[Joy Walker|PERSON]]) for sore throat x3 days, fever to 101.8 at home, decreased PO intake. No cough. Sibling w/ strep last wk.
O: T 38.4, HR 112. Tonsillar exudates bilat, tender anterior cervical LAD. Rapid strep +.
A: Strep pharyngitis. Centor 4.
P: Amoxicillin 50 mg/kg/day divided BID x10 days. Tylenol/Motrin PRN fever. Return to school after 24h abx. f/u PRN.
[[Ivy Chen|PERSON]], PA-C""",

"""TELEPHONE ENCOUNTER
Caller: [[Bill Stone|PERSON]] (husband)   Pt: [[Marguerite Stone|PERSON]]   DOB [[9/3/1944|DATE_OF_BIRTH]]
Call back #: [[(614) 555-0183|PHONE]]
Reason: husband reports pt more confused since yesterday, "not herself", brown urine and burning. No fever measured. Pt has hx of Alzheimer's dementia, recurrent UTIs.
Advised: bring pt to UC today for UA/UCx. If lethargic, unable to drink, or fever > 101 go to ED. Husband verbalized understanding.
Routed to Dr. [[Oyelaran|PERSON]] for review.
-[[Tamsin R.|PERSON]], LPN""",

"""HANDOVER - 4 WEST, BED 12 - night -> day
S: [[Abdullah Al-Harbi|PERSON]], [[71M|AGE]], POD2 s/p Whipple procedure for pancreatic head mass.
B: Hx COPD, HTN, ex-smoker. Lives w/ son [[Khalid|PERSON]].
A: HR 98-110 overnight, afebrile. JP drain 140 ml serosanguinous. NGT to LIS. Pain controlled on PCA. UOP 30-40 ml/h. K 3.3 - replaced 40 mEq IV, recheck at 1000.
R: Pls chase 1000 K+. Dr. [[Valentina Rossi|PERSON]] (surg) to review drain amylase. Mobilise to chair w/ PT today. Son [[Khalid|PERSON]] wants call w/ any changes, # in chart.
Handed over by [[Precious Mahlangu|PERSON]] RN to [[Will Tran|PERSON]] RN.""",

"""ED PHYSICIAN NOTE - [[03/14/2026|DATE]]
PT: [[HERNANDEZ, JOSE LUIS|PERSON]]  MRN [[7702145|MEDICAL_RECORD]]
CC: CHEST PAIN
HPI: [[58 Y/O|AGE]] M W/ HX HTN, HLD, T2DM, 1 PPD SMOKER, P/W SUBSTERNAL CP X 2 HRS RADIATING TO L ARM, ASSOC DIAPHORESIS AND NAUSEA. 8/10. TOOK ASA 325 AT HOME PER WIFE [[MARIA|PERSON]].
EKG: 2-3 MM STE II, III, AVF W/ RECIPROCAL DEPRESSION I, AVL. LEVINE SIGN PRESENT.
ASSESSMENT/PLAN: INFERIOR STEMI. CATH LAB ACTIVATED 14:05. HEPARIN BOLUS, TICAGRELOR 180 MG. CARDS (DR. [[OSEI|PERSON]]) AT BEDSIDE. FAMILY UPDATED.""",

"""pt seen w/ dr. [[lim|PERSON]] on rounds. [[82f|AGE]] w/ hx chf, afib on eliquis, admitted w/ mech fall, found to have L hip fx. s/p ORIF yesterday. pain ok, confused overnight, got haldol 0.5 x1. CAM positive. daughter [[faith|PERSON]] here, says baseline she's sharp, lives alone, does own cooking. will d/c foley today, avoid benzos, reorient, glasses on. pt to walker w/ PT. will f/u bmp.""",

"""DELIVERY NOTE
Mother: [[Thandiwe Nkosi|PERSON]], [[29 y/o|AGE]] G2P1 -> now G2P2, 39w2d
Delivery: SVD [[03/07/2026|DATE]] @ 04:12, viable female infant, wt 3.41 kg
Apgar 8 & 9 at 1 & 5 min. Delayed cord clamping 60s. Placenta delivered intact, 3-vessel cord.
EBL 300 ml. 2nd degree laceration repaired w/ 3-0 Vicryl.
Baby named [[Amahle|PERSON]]. Father [[Sipho Nkosi|PERSON]] present, cut cord.
Attending: [[R. Fitzgerald|PERSON]], MD   Midwife: [[Nomvula|PERSON]]""",

"""MICU PROGRESS NOTE
[[Patel, Kiran|PERSON]] | [[48M|AGE]] | MRN [[0091-448-22|MEDICAL_RECORD]] | HD#5
24H EVENTS: Extubated 0900 yest, tolerating 4L NC. Self-d/c'd NGT overnight, replaced.
NEURO: GCS 14 (E4V4M6). CAM-ICU neg this AM. Off propofol.
CV: MAP 70s off pressors since yest AM. Sinus 80s.
RESP: SpO2 95% 4L. CXR improved bilat infiltrates.
RENAL: Cr 2.1 -> 1.7. UOP 1.2L.
ID: Day 5 pip-tazo, BCx NGTD. Sputum MSSA.
GI: DKA resolved, AG closed. Transitioned to SQ insulin.
PLAN: Advance to clears. Narrow abx to cefazolin. PT/OT. Wife [[Anjali|PERSON]] and brother [[Nikhil|PERSON]] updated by phone.
[[Brennan O'Sullivan|PERSON]], MD (fellow) / [[Li Wei|PERSON]], MD (attending)""",

"""PSYCHIATRY CONSULT
Reason: ?capacity to refuse dialysis
Pt [[Hope Addo|PERSON]], [[39F|AGE]], ESRD 2/2 lupus nephritis, on HD MWF via L AVF. Has missed 3 sessions, told RN [[Dmitri|PERSON]] "I'm done, I don't want the machine anymore."
MSE: Calm, cooperative, good eye contact. Mood "tired." Affect constricted, reactive. TP linear. Denies SI/HI, AVH. Insight & judgment fair.
Capacity: Pt able to communicate choice, understands risks incl death, appreciates how they apply to her, reasons consistently w/ her values. Has capacity for this decision at this time.
Discussed w/ renal team (Dr. [[Singh|PERSON]]) and social work. Pt agreeable to family meeting w/ her sister [[Patience|PERSON]] on Friday. There is still hope she may reconsider.""",

"""[[23F|AGE]] c/o HA x2d, photophobia, neck stiffness. +Kernig, +Brudzinski. T 39.1. Dr. [[Ahn|PERSON]] aware, LP kit to bedside. Droplet precautions.""",

"""ORTHO CLINIC - [[Mark Sterling|PERSON]]   DOB [[12/01/1979|DATE_OF_BIRTH]]
HPI: [[46M|AGE]] recreational soccer player, twisted R knee 3 wks ago, heard pop, immediate swelling. Now c/o instability going down stairs.
EXAM R knee: mod effusion. Lachman 2+ w/ soft endpoint. Anterior drawer +. McMurray neg. Medial joint line nontender.
IMAGING: MRI [[2/27/26|DATE]] - complete ACL tear, bone bruise lat femoral condyle.
PLAN: Discussed options. Pt wants ACL recon (BTB autograft). Mark the site day of surgery. Prehab w/ PT ([[Luana|PERSON]]). Pre-op labs. Surgery sched w/ [[Kelly|PERSON]] in scheduling.
[[Oluwaseun Adebisi|PERSON]], MD""",

"""NEURO CONSULT NOTE
Requesting: Dr. [[Ekaterina Volkova|PERSON]] (hospitalist)
Reason: ascending weakness
HPI: [[27M|AGE]] w/ 5 days of progressive BLE weakness, now difficulty climbing stairs, tingling in feet. Had diarrheal illness ~2 wks ago.
EXAM: Strength 3/5 hip flexors bilat, 4/5 UE. Areflexic throughout. Babinski absent bilat (downgoing toes). Sensation mildly reduced distally. No facial weakness.
IMPRESSION: c/f Guillain-Barré syndrome (AIDP), likely post-Campylobacter.
PLAN: LP for CSF protein, NCS/EMG, NIF/FVC q4h - if FVC < 20 ml/kg transfer ICU. Start IVIG 0.4 g/kg/day x5d.
Discussed w/ pt and his partner [[Cash Delgado|PERSON]].
[[Jae-won Lee|PERSON]], MD, Neurology""",

"""COLONOSCOPY REPORT
Patient: [[Brown, Ebony|PERSON]]   MRN: [[33-08771|MEDICAL_RECORD]]   Age: [[61|AGE]]
Endoscopist: [[Farid Haddad|PERSON]], MD   Anesthesia: MAC ([[Rowan Price|PERSON]], CRNA)
Indication: screening, FHx colon CA (mother at [[58|AGE]])
Prep: Boston Bowel Prep Scale 8 (3/3/2)
Findings: 2 sessile polyps (5 mm, 7 mm) in ascending colon, removed w/ cold snare. Small internal hemorrhoids. Sigmoid diverticulosis.
Impression: polyps removed, path pending.
Recs: f/u path. Repeat colonoscopy in 3-5 yrs depending on histology. Resume diet.""",
]

CLINICAL += [
"""ADMISSION NURSING ASSESSMENT
Name: [[Rodrigo Alves da Silva|PERSON]]   DOB: [[17/05/1985|DATE_OF_BIRTH]]   Hosp No: [[RX0049211|MEDICAL_RECORD]]
Address: [[Flat 3, 27 Mornington Crescent|STREET_ADDRESS]], [[London|GPE]] [[NW1 7RE|POSTCODE]]
NOK: [[Camila Alves|PERSON]] (wife) [[07700 900482|PHONE]]
Language: Portuguese, good English. Declined interpreter.
Allergies: NKDA
Skin: intact, Braden 20. Morse fall score 25.
Mobility: independent, no aids.
Diet: normal. Nil by mouth from midnight for ERCP.
Valuables: wallet & phone, pt keeping.
Admitted by: [[Siobhan Gallagher|PERSON]], Staff Nurse""",

"""ENDO f/u. [[35F|AGE]] referred for ?Cushing's. Wt gain 15 kg over 1 yr, purple striae abdomen, new HTN, proximal weakness. 1mg overnight dex suppression test: AM cortisol 9.2 (not suppressed). 24h UFC x2 both elevated. Late night salivary cortisol high.
A: ACTH-dependent vs independent Cushing's syndrome - ACTH pending.
P: ACTH, then pituitary MRI vs adrenal CT accordingly. Hold off on starting any tx. RTC 2 wks. Pt's husband [[Hunter|PERSON]] asked about fertility - discussed.
- [[N. Abubakar|PERSON]] MD""",

"""SOCIAL WORK NOTE
Met w/ pt [[Hyun-woo Kim|PERSON]] and wife [[Soo-ah|PERSON]] re: d/c planning. Pt's Medicaid coverage lapsed; per [[Benita|PERSON]] at the county office there is a 30-day grace period and re-application can be filed by [[3/31/2026|DATE]]. Assisted w/ application today. Pt will need FWW and shower chair - DME order placed. Wife able to assist w/ ADLs, works part-time at a bakery. Lives in 2nd floor apt w/ elevator at [[1450 Dunmore Ave, Apt 2C|STREET_ADDRESS]], [[Scranton|GPE]], [[PA|GPE]] [[18509|POSTCODE]].
Contact: wife's cell [[570-555-0114|PHONE]].
[[Adaeze Obi|PERSON]], LCSW""",

"""wound care rn note: sacral stage 3 pressure injury 4.2 x 3.1 x 0.8 cm, 30% slough, mod serous drainage, no odor. periwound intact. cleansed w/ NS, calcium alginate + foam border. pt repositioned q2h, on low air loss mattress. braden 12. dr [[wood|PERSON]] (plastics) to see tmrw re: debridement. - [[kateryna|PERSON]], cwocn""",

"""[[44M|AGE]] woke up w/ R facial droop, can't close R eye, drooling from R corner of mouth. Forehead involved. No limb weakness, speech nl. NIHSS 0 (except facial). Hx HTN.
Dx: Bell's palsy.
Tx: prednisone 60 mg x7d, valacyclovir, artificial tears, eye patch at night.
Pt concerned it's a stroke - reassured, but given strict return precautions. Wife [[Amara|PERSON]] driving him home.""",

"""Dear [[Rose Baker|PERSON]],

You were seen in the Emergency Department at [[St. Vincent's Hospital|FAC]] on [[March 4, 2026|DATE]] for a kidney stone. Your CT scan showed a 4 mm stone that should pass on its own.

What to do at home:
- Drink plenty of water (2-3 liters a day)
- Strain your urine and bring any stone you catch to your follow-up
- Take tamsulosin 0.4 mg once daily until the stone passes
- Take ibuprofen 600 mg every 6 hours as needed for pain

Come back right away if you have fever over 100.4, vomiting and can't keep fluids down, or pain that medicine doesn't help.

Follow up with Dr. [[Ezekiel Banks|PERSON]], Urology, in 1-2 weeks. Call [[(312) 555-0148|PHONE]] to schedule.

[[Daniel Ojo|PERSON]], PA-C""",

"""XR L WRIST 3 VIEWS. CLINICAL INFO: FOOSH. FINDINGS: TRANSVERSE FX OF DISTAL RADIAL METAPHYSIS W/ DORSAL ANGULATION AND IMPACTION C/W COLLES FRACTURE. ULNAR STYLOID FX. NO DISLOCATION. IMPRESSION: COLLES FX. READ BY [[T. NAKAMURA|PERSON]] MD.""",

"""CARDIOLOGY CLINIC
Pt: [[Aiyana Redcloud|PERSON]]  ([[19 y/o|AGE]] F)
Referred by PCP ([[Lorenzo Bianchi|PERSON]], NP) for palpitations & EKG showing short PR, delta waves.
Holter 48h: 3 episodes SVT, max HR 210, pt symptomatic (lightheaded).
Dx: Wolff-Parkinson-White pattern w/ symptomatic SVT.
Plan: EP referral for ablation. Avoid AV nodal blockers. Taught vagal maneuvers (modified Valsalva). ED if syncope.
Mom [[Raven|PERSON]] present for visit.""",

"""PHARMACY CONSULT - VANCOMYCIN DOSING
Pt [[Mohammed Rahimi|PERSON]], [[63M|AGE]], wt 82 kg, SCr 1.1, CrCl ~70.
Indication: MRSA bacteremia.
Loading dose 2000 mg IV x1, then 1250 mg IV q12h. Target AUC 400-600. Trough before 4th dose ([[3/10|DATE]] 0530).
Interactions: none significant. Note: pt also on Lasix 40 PO daily - monitor renal fx.
Will follow. Page w/ questions.
[[Yuki Tanaka|PERSON]], PharmD""",

"""PRE-ANESTHESIA EVAL
[[Jennifer Page|PERSON]], [[55F|AGE]], scheduled for L TKA [[3/18/26|DATE]] w/ Dr. [[Kowalski|PERSON]].
PMH: OSA on CPAP, HTN, obesity (BMI 41), GERD.
PSH: C-section x2, appendectomy. No personal/FHx of anesthesia problems.
Airway: Mallampati III, TMD 3 FB, neck ROM full, no dentures.
ASA III.
Plan: GA w/ ETT, adductor canal block. Bring CPAP DOS. Hold lisinopril AM of surgery. Cont omeprazole.""",

"""post op check 1900: pt a&ox3, pain 3/10 on dilaudid pca. abd soft, appropriately tender, incision c/d/i w/ steri-strips. jp drain w/ 40cc serosang. voiding spontaneously. tolerating sips. will advance diet in am. discussed w/ chief resident dr. [[mensah|PERSON]].""",

"""WELL CHILD 4 YR
[[Mateo Ramírez|PERSON]], DOB [[01/15/2022|DATE_OF_BIRTH]]
Accompanied by mother [[Guadalupe|PERSON]] and grandmother. Spanish interpreter [[Ana|PERSON]] used (ID [[77213|PERSONAL_ID]]).
Development: speaks in sentences, hops on one foot, draws a cross. Denver II appropriate.
Growth: ht 50th %ile, wt 75th %ile.
Vision: passed. Hearing: passed.
Vaccines: DTaP, IPV, MMR, varicella given today. VIS provided in Spanish.
Anticipatory guidance: booster seat, water safety, screen time. Mom asks about summer camp - ok.
RTC at 5 yrs.""",

"""Discharge Summary - [[Liam Byrne|PERSON]] ([[16 y/o|AGE]])
Dx: Pneumonia, RML. Background: Down syndrome, repaired AVSD ([[2011|DATE]]), OSA.
Course: Treated w/ IV ampicillin -> PO amox on day 3. O2 weaned off day 4. Swallow eval (SLP [[Imogen|PERSON]]) - no aspiration.
Dispo: home w/ parents [[Declan|PERSON]] and [[Siobhán Byrne|PERSON]]. PCP f/u 1 wk. Complete amoxicillin x5 more days.""",

"""OB TRIAGE
[[Fatima Zahra Benali|PERSON]] [[31|AGE]] G3P2002 @ 34w1d by 8 wk US
c/o ctx q5-7 min since 0200, +LOF? Sterile spec exam: no pooling, nitrazine neg, fern neg. Cx 2/50/-2 (unchanged from OB visit [[2/28|DATE]]). FFN positive. NST reactive.
Plan: betamethasone 12 mg IM q24h x2, nifedipine for tocolysis, GBS swab, admit L&D for obs. Dr. [[Okafor|PERSON]] updated, agrees. Husband [[Youssef|PERSON]] at bedside.""",

"""ED NOTE (ADDENDUM)
Pt states she was assaulted by ex-partner ("[[Darnell|PERSON]]") at her residence last night. Police (Officer [[Reyes|PERSON]], badge [[4471|PERSONAL_ID]]) at bedside, report #26-00483. SANE nurse [[Marisol|PERSON]] consulted. Safety plan discussed; pt will stay w/ her sister [[Destiny|PERSON]] tonight. Photos of injuries obtained w/ consent.""",

"""SLP BEDSIDE SWALLOW EVAL
Pt: [[Dolores Young|PERSON]], [[88F|AGE]], L MCA CVA [[3/1|DATE]].
Oral motor: R facial weakness, reduced lingual ROM.
Trials: thin liquids via cup - coughing x3, wet voice. Nectar thick - no overt s/s aspiration. Puree - adequate.
Recs: dysphagia puree diet, nectar-thick liquids, meds crushed in puree, upright 90° for meals, 1:1 supervision. MBS to be scheduled.
Family (son [[Walter|PERSON]]) educated. - [[Quinn Abernathy|PERSON]], MS CCC-SLP""",

"""hd3. afebrile. bp better on amlo 10. pt eating 75%. pt wants to go home, son [[will|PERSON]] can pick him up after work. will d/c tmrw if cr stable.""",

"""HEME/ONC CLINIC
[[Arjun Venkataraman|PERSON]] | [[24M|AGE]] | Classical Hodgkin lymphoma, nodular sclerosis, stage IIA
Cycle 3 day 1 ABVD today.
Interval: mild fatigue, nausea controlled w/ Zofran. No fever, no night sweats. Neuropathy none.
Labs: ANC 1.4, Hgb 11.8, Plt 210. PFTs stable (DLCO 88%).
Plan: proceed w/ C3D1. Interim PET after C2 showed Deauville 2 - continue ABVD x4 more cycles. Sperm banking done prior to tx.
Seen w/ Dr. [[Agnieszka Nowak|PERSON]]""",

"""Home visit. Mrs. [[Nguyen|PERSON]] sitting in recliner, alert, pleasant, oriented to person & place. Her daughter [[Mei|PERSON]] (lives w/ her) reports 2 falls this month, both at night going to bathroom. Home: throw rugs in hallway, poor lighting, no grab bars. Gait slow, wide-based; TUG 19 s. Orthostatics neg.
Plan: OT home safety eval, remove rugs, nightlights, bedside commode. Hold zolpidem. Vit D level. Will discuss hip protectors w/ [[Mei|PERSON]].""",

"""ID CLINIC
[[Kwame Asante|PERSON]], [[42 y/o|AGE]] M, HIV dx [[2019|DATE]], on Biktarvy, adherent per pt. CD4 612, VL undetectable ([[1/20/26|DATE]]).
New purple papules R shin x 6 wks - bx by derm (Dr. [[Ivana Petrović|PERSON]]) neg for Kaposi sarcoma, c/w stasis dermatitis.
Vaccines: Shingrix #2 today. Hep B immune.
PrEP counseling for partner [[Emeka|PERSON]] - referred to PrEP clinic.
RTC 6 mo w/ labs.""",

"""PEDS ED: [[3 y/o|AGE]] F, fever x6 days, bilat nonexudative conjunctivitis, strawberry tongue, cracked lips, rash trunk, swollen hands. Mom ([[Linh Tran|PERSON]]) says pediatrician Dr. [[Alvarez|PERSON]] thought viral. Concern for Kawasaki disease. Echo, ESR/CRP, CBC, CMP, UA ordered. Peds cards paged.""",

"""DISCHARGE SUMMARY
NAME: [[Zhang, Wei|PERSON]]    MRN: [[20031877|MEDICAL_RECORD]]    DOB: [[08/02/1949|DATE_OF_BIRTH]]
ADMIT: [[02/26/2026|DATE]]    D/C: [[03/06/2026|DATE]]
PCP: [[Harriet Cho|PERSON]], MD - [[Lakeside Internal Medicine|FAC]], [[(206) 555-0177|PHONE]]

DIAGNOSES
1. Acute on chronic HFrEF exacerbation (EF 25%)
2. AKI on CKD 3b
3. Paroxysmal afib
4. Parkinson's disease

HOSPITAL COURSE
[[76 y/o|AGE]] M w/ ischemic CM, s/p CABG [[2015|DATE]], presented w/ 2 wks progressive DOE, orthopnea, 6 kg wt gain. BNP 3400. Diuresed w/ IV Lasix 80 BID, net -7.2 L. Cr peaked 2.3, improved to 1.8 at d/c. Entresto held due to AKI, to be restarted by cardiology. Afib RVR on HD2 rate controlled w/ metoprolol; cont Eliquis 5 BID. Sinemet continued; PT noted shuffling gait, recommends rolling walker.

DISCHARGE WEIGHT: 71.4 kg (dry wt)

FOLLOW-UP
- HF clinic (Dr. [[Rashida Young|PERSON]]) [[3/13|DATE]]
- Labs (BMP) [[3/10|DATE]]
- PCP 2 wks

Discussed w/ pt and daughter [[Lily Zhang|PERSON]] (HCP). Interpreter (Mandarin) used.
[[Gabriel Moreau|PERSON]], MD""",

"""Pt called requesting refill of albuterol HFA & Singulair. Last seen [[11/14/25|DATE]]. Pharmacy: Walgreens on Elm. Refilled x1, pt needs appt for asthma f/u before further refills. Msg left on VM [[(404) 555-0162|PHONE]]. - [[Keisha|PERSON]] MA""",

"""UROLOGY CONSULT
Requested by Dr. [[Priyanka Iyer|PERSON]] (ED)
[[37M|AGE]] w/ 7 mm L UVJ stone, febrile 38.9, WBC 17, UA nitrite+, LE+. Lactate 2.4.
A: Obstructing infected stone - urologic emergency.
P: Emergent L ureteral stent tonight. Cont ceftriaxone. Definitive ureteroscopy in 2-3 wks once infection cleared. Pt consents, wife [[Tiffany|PERSON]] on phone.
[[Jordan Stone|PERSON]], MD, Urology""",

"""0700 HANDOFF RECEIVED FROM [[DAWN|PERSON]] RN. PT SLEEPING, RESP EVEN AND UNLABORED.
0815 PT UP TO CHAIR W/ ASSIST X1. C/O DIZZINESS, BP 98/60 SITTING. RETURNED TO BED, DR [[ADEBAYO|PERSON]] NOTIFIED, NS 500 ML BOLUS ORDERED.
0900 BP 112/70. PT STATES FEELS BETTER.
1130 PT'S BROTHER [[FRANCISZEK|PERSON]] VISITING.
1400 AMBULATED 50 FT W/ WALKER, TOLERATED WELL. - [[M. GRACE|PERSON]] RN""",
]

CLINICAL += [
"""TRAUMA ACTIVATION LVL 1  [[03/15/2026|DATE]] 02:10
Pt: [[Tariq Mahmood|PERSON]] (ID confirmed by brother [[Imran|PERSON]] at 0300)
Mech: GSW L flank. BIBA, EMS reports GCS 13 at scene.
Primary: A patent, B equal BS, C HR 128 BP 88/50, 2 large bore IVs, MTP activated. D GCS 12 (E3V4M5), pupils 3 mm equal reactive. E single entry wound L flank, no exit.
FAST: +fluid LUQ/Morison's pouch.
To OR w/ Dr. [[Eleanor Hughes|PERSON]] (trauma surgery) at 02:34.
Scribe: [[Ryo|PERSON]]""",

"""DERM: [[29F|AGE]] w/ itchy linear vesicles on bilat forearms after hiking last weekend. Classic for poison ivy contact dermatitis. Tx: clobetasol 0.05% oint BID x2 wks, oral antihistamine qHS. If spreads to face, will consider pred taper. - [[Sunita Rao|PERSON]] MD""",

"""ENDOCRINE FOLLOW-UP
[[Thomas Graves|PERSON]], [[50M|AGE]], Graves' disease dx [[Oct 2025|DATE]], on methimazole 10 mg daily.
Sx: palpitations resolved, wt stable. Mild lid lag, no proptosis, no diplopia.
Labs: FT4 1.2 (nl), TSH 0.08 (still suppressed), TRAb trending down.
Plan: reduce methimazole to 5 mg. Recheck TFTs 6 wks. Discussed RAI vs surgery if relapse after 12-18 mo course. Mr. [[Graves|PERSON]] prefers to continue meds for now.
[[Min-jun Seo|PERSON]], MD""",

"""Pt refused 2100 Lovenox, states "I'm walking plenty." Educated re: DVT risk, still declines. Dr. [[Nwachukwu|PERSON]] notified, ok to hold tonight & readdress in AM. SCDs applied. -[[Aleksandra|PERSON]] RN""",

"""CRITICAL VALUE: K+ 6.8 on [[03/11/2026|DATE]] 06:05, pt [[Obi, Chukwuemeka|PERSON]] MRN [[4418820|MEDICAL_RECORD]]. Hemolyzed: NO. Called to [[Juniper Hale|PERSON]], RN, 4 North at 06:12 by [[G. Moreno|PERSON]] (lab). Read-back verified.""",

"""PT EVAL
Dx: s/p R THA (posterior approach) POD1
Prior level: indep w/o AD, lives w/ husband in 1-story home, 3 STE w/ R rail.
Precautions: posterior hip - no flex >90°, no IR, no adduction past midline.
Bed mob: min A. Sit-stand: CGA w/ RW. Gait: 60 ft w/ RW, + Trendelenburg gait R.
Plan: BID PT, stair training, d/c home w/ HHPT when safe on stairs. Husband [[Norbert|PERSON]] to attend session tmrw.
[[Ximena Castillo|PERSON]], PT, DPT""",

"""s: [[mark|PERSON]] says his back still hurts, worse bending, no numbness/tingling, no b/b incontinence. been doing the stretches "sometimes".
o: ttp L paraspinals, slr neg bilat, strength 5/5, reflexes 2+ sym.
a: mechanical low back pain, improving slowly
p: cont nsaids w/ food, refer to pt, work note for light duty x2 wks. rtc 4 wks or sooner if red flags.""",

"""Nurse triage call: mother [[Faith Olawale|PERSON]] calling about [[6 mo old|AGE]] [[Grace|PERSON]], temp 102.3 rectal since this AM, fussy but consolable, feeding ok, 5 wet diapers today. No rash, no difficulty breathing. Advised acetaminophen 80 mg (2.5 ml of 160/5) q4-6h, fluids, call back or ED if lethargic, <3 wet diapers/day, or fever > 3 days. Appt made w/ Dr. [[Summer Lin|PERSON]] tmrw 9:15.""",

"""MEMORY CLINIC
[[Beatriz Oliveira|PERSON]], [[79F|AGE]], accompanied by husband [[Joaquim|PERSON]].
MoCA 17/30 (from 21/30 one yr ago). Visual hallucinations (sees children in garden), fluctuating alertness, REM sleep behavior (husband reports she "acts out dreams"). Mild parkinsonism on exam.
Imp: probable dementia w/ Lewy bodies rather than Alzheimer's.
Plan: start rivastigmine patch 4.6 mg. AVOID typical antipsychotics (Haldol) - high risk of severe sensitivity. DaTscan. Caregiver support referral.""",

"""BRIEF OP NOTE
Date: [[03/03/2026|DATE]]
Pt: [[Olga Smirnova|PERSON]]
Pre-op dx: Large hiatal hernia, refractory GERD, h/o Roux-en-Y gastric bypass [[2014|DATE]]
Procedure: Lap hiatal hernia repair w/ mesh
Surgeon: [[Kenji Watanabe|PERSON]], MD   Assist: [[Leilani Kahale|PERSON]], PA-C
Anesthesia: GA   EBL: 20 ml   Drains: none   Specimens: none
Complications: none. Nissen not performed given prior bypass anatomy.
Dispo: PACU, stable.""",

"""[[2 y/o|AGE]] M w/ vomiting/diarrhea x2d, 4 episodes emesis today, tolerating pedialyte in small sips. Mod dehydration, CRT 3s. Zofran ODT given, PO challenge passed. Dx viral gastroenteritis. Mom ([[Leah Rice|PERSON]]) instructed small freq fluids, advance to bland diet (rice, toast, bananas) as tolerated. Return if bloody stool, no urine > 8 hrs.""",

"""ICU SBAR - Bed 7
[[Concepcion Dela Cruz|PERSON]], [[68F|AGE]], septic shock 2/2 pyelo. On norepi 0.08, vaso 0.03. Lactate 3.1 -> 2.2. Foley in, UOP 20 ml/h last 3 hrs. Art line R radial. R IJ CVC placed [[3/12|DATE]].
Family: husband [[Rodolfo|PERSON]], daughter [[Marivic|PERSON]] (nurse in [[Manila|GPE]], calling at 2200 our time).
To do: repeat lactate 0600, blood cx pending, ID recs re: abx. Dr. [[Banks|PERSON]] is the night intensivist.
Give: [[Jomar Santos|PERSON]] RN -> Take: [[Carmen Ortiz|PERSON]] RN""",

"""[[Tigist Bekele|PERSON]] is a [[33 y/o|AGE]] woman from [[Addis Ababa|GPE]] who presents for new-patient visit. Moved to [[Seattle|GPE]] 4 months ago. Hx of latent TB tx'd w/ isoniazid [[2021|DATE]] in [[Ethiopia|GPE]] (completed per pt). G1P1, son [[Dawit|PERSON]] age [[5|AGE]]. Interested in IUD. Amharic interpreter ([[Selam|PERSON]]) used for the visit.""",

"""EXERCISE STRESS TEST
Protocol: Bruce
Pt: [[Ahmet Yıldız|PERSON]], [[59M|AGE]]
Exercise time 8:45, METs 10.1, reached 91% MPHR. Test stopped due to fatigue.
BP response nl. No angina. 1 mm upsloping ST depression in V5-V6 at peak, resolved in recovery within 1 min.
Duke treadmill score +8 (low risk).
Impression: negative for ischemia at adequate workload.
Interpreted by: [[Sergio Mendoza|PERSON]], MD""",

"""pt is a [[22 y/o|AGE]] college student brought by roommate [[kenzie|PERSON]] after texting friends goodbye msgs. endorses SI w/ plan (OD on sertraline). no prior attempts. reports no joy in anything x months, poor sleep, 10 lb wt loss. mom ([[joy ramirez|PERSON]]) notified w/ pt's permission, driving in from [[el paso|GPE]]. 1:1 sitter, belongings searched. psych eval requested.""",

"""[[45f|AGE]] cp since lst night, pleuritic, worse w/ deep breath. recent flight from [[sydney|GPE]]. on ocp. L calf swelling. wells score 6. ctpa ordered. hr 112. dr [[ngozi|PERSON]] aware. hep gtt if ctpa pos.""",

"""Gen Surg clinic f/u - [[Ernesto Villanueva|PERSON]]
s/p Hartmann's procedure [[11/2025|DATE]] for perforated sigmoid diverticulitis. Colostomy functioning well, stoma pink, no parastomal hernia. Pt eager for reversal. CT colonography clear. Plan Hartmann's reversal in [[May|DATE]]. Pre-op w/ anesthesia. Ostomy RN [[Yvonne|PERSON]] to see today re: supplies.""",

"""OPHTHO: VA (Snellen) OD 20/40, OS 20/25. IOP 24/19. Cup:disc 0.7 OD, 0.4 OS. Gonioscopy open angles. Imp: POAG OD. Start latanoprost qHS OD. VF testing next visit. Pt ([[Hiroshi Abe|PERSON]]) reminded re: drop technique; wife [[Keiko|PERSON]] helps.""",

"""US PELVIS TRANSVAGINAL
Hx: [[26F|AGE]], LMP [[2/3/26|DATE]], +hCG, vag bleeding, LLQ pain
Findings: No IUP. Complex L adnexal mass 2.8 cm separate from ovary. Mod free fluid in pouch of Douglas.
Impression: Findings concerning for L ectopic pregnancy. Results discussed w/ Dr. [[Ogunleye|PERSON]] at 22:15.""",

"""[[70F|AGE]] w/ episodic vertigo when rolling over in bed, lasts <1 min. No hearing loss, no tinnitus. Dix-Hallpike + on R w/ upbeating torsional nystagmus. Dx R posterior canal BPPV. Epley maneuver performed x2 w/ sx relief. Home Brandt-Daroff exercises handout given. - [[Ruth Feldman|PERSON]], NP""",

"""Transfer note: pt [[Kofi Boateng|PERSON]] transferring from [[Grace Memorial Hospital|FAC]] to [[St. Luke's Medical Center|FAC]] for cath. Accepting: Dr. [[Elif Aydın|PERSON]]. Report called to [[Hollis|PERSON]] RN at 1640. Transport via ALS.""",

"""IMMUNIZATION HX (per state registry, reviewed w/ pt [[Carlos Mejía|PERSON]]):
- COVID: J&J x1 ([[04/2021|DATE]]), Pfizer booster ([[10/2022|DATE]])
- Tdap [[2018|DATE]]
- Influenza [[10/09/2025|DATE]] at CVS
- Pneumococcal: PCV20 due (age [[66|AGE]])
Pt agrees to PCV20 today. Administered L deltoid by [[Bernadette|PERSON]], MA. Lot # FG4471.""",

"""HOSPICE RN VISIT
[[Walter Cook|PERSON]], [[91M|AGE]], end-stage COPD. Pt resting in hospital bed in living room. RR 24, mild accessory muscle use, O2 3L via concentrator. Pt reports SOB "about the same." Using morphine 5 mg SL q2h PRN ~4x/day - effective.
Wife [[Ida|PERSON]] and granddaughter [[Brianna|PERSON]] present; [[Ida|PERSON]] is coping, tearful at times. Chaplain Fr. [[Tadeusz|PERSON]] visited yesterday per family. Bowels: last BM 2 days ago, senna increased. Skin intact. Reviewed signs of approaching death w/ family. Next visit Thu.""",

"""Pt is a [[54M|AGE]] presenting for f/u of HTN. BP today 128/78 on losartan 50. Home readings similar. No c/o HA, CP, or vision changes. Cont current regimen. Labs next visit. RTC 6 mo.""",

"""NEURO CHECK: GCS rose by 2 points since 0400 (now 13, E3V4M6). Pupils 3 mm brisk bilat. Dr. [[Venkatesh|PERSON]] updated, repeat CT head cancelled. Pt's partner [[Ashley Moore|PERSON]] at bedside.""",

"""GYN: [[38F|AGE]] w/ painful L labial swelling x4 days. Exam: 3 cm fluctuant Bartholin's gland abscess. I&D performed, Word catheter placed. Pap last [[2024|DATE]] nl, HPV neg. f/u 4 wks for catheter removal. - [[Oyinkansola Bello|PERSON]], MD""",

"""CARDIAC REHAB NOTE
[[Bartholomew Hill|PERSON]] ("[[Bart|PERSON]]"), [[62M|AGE]], s/p PCI to LAD [[1/29/26|DATE]]. Session 8/36. Treadmill 20 min @ 3.0 mph, 4% grade, RPE 12. HR 88->121. No CP. Pt reports he can now walk up the hill to his mailbox without stopping. Educated on Mediterranean diet. His wife [[Carol|PERSON]] joined for nutrition class. - [[Ines Ferreira|PERSON]], RN, CCRP""",

"""MSK US R knee: 4.1 x 2.3 cm Baker's cyst, no rupture. No DVT on limited venous study. Discussed w/ Dr. [[Baker|PERSON]] (ordering) - she will arrange aspiration/steroid inj in clinic.""",

"""RHEUM NEW PT - [[Chiamaka Eze|PERSON]] [[45F|AGE]]
Referred by PCP ([[Joanna Lis|PERSON]], MD) for dry eyes/mouth x1 yr, Raynaud's phenomenon, arthralgias (MCPs, wrists). Schirmer test 3 mm OU. ANA 1:640 speckled, SSA+, SSB+, RF+.
Imp: primary Sjögren's syndrome. No evidence of SLE overlap at this time.
Plan: hydroxychloroquine 200 BID after baseline eye exam, pilocarpine 5 mg TID, artificial tears, dental f/u q6mo. SPEP (lymphoma risk). RTC 3 mo.""",

"""NURSING NOTE 2230
Pt increasingly restless and moody this evening, pulling at IV, asking for "[[Bill|PERSON]]" (per daughter, her late husband). Reoriented, redirected w/ music. Daughter [[Ayşe|PERSON]] on phone, agreed to come in AM. Trazodone 25 mg PO given per order @ 2200. Bed low, alarm on. Sitter requested. - [[Kemal Öztürk|PERSON]], RN""",

"""Young adult male found down outside bar, EtOH on breath, GCS 11 on arrival (E3V3M5), abrasion L forehead, no other obvious trauma. ID in wallet: [[Connor Walsh|PERSON]], DOB [[02/09/2003|DATE_OF_BIRTH]]. CT head/C-spine neg. Serial neuro checks q1h. Attempting to reach emergency contact (mother, [[Niamh Walsh|PERSON]]) - no answer x2. Seen by [[Priya S.|PERSON]], NP.""",
]

# ---------------------------------------------------------------------------
# SUPPORT MAIL
# ---------------------------------------------------------------------------

SUPPORT += [
"""From: [[Lwazi Dlamini|PERSON]] <[[lwazi.dlamini@brightcart.co.za|EMAIL]]>
To: [[support@parcelpoint.com|EMAIL]]
Subject: Parcel not delivered - order #PP-2290417
Date: [[Tue, 3 Mar 2026|DATE]] 09:14:22 +0200

Hi,

My parcel was marked as delivered yesterday but I never received it. I was home all day. The tracking says "left at front door" but there is nothing there, and my neighbour [[Thabo|PERSON]] also didn't see any driver.

Please can you check with the courier.

Thanks
[[Lwazi|PERSON]]""",

"""Ticket #48213 - "Refund not received"
Status: Pending -> Open
Priority: Normal
Requester: [[Magdalena Kaczmarek|PERSON]] ([[magda.kaczmarek@wp.pl|EMAIL]])
Assignee: [[Lwazi M.|PERSON]] (Tier 1)

--- Update by Agent [[Lwazi|PERSON]], [[04 Mar 2026|DATE]] 11:02 ---
Hi [[Magdalena|PERSON]],

I checked with our billing team and the refund of €49.99 was issued on [[26 February|DATE]] to the card ending 4417. Banks can take 5-10 business days to process it. If you still don't see it by [[11 March|DATE]], please reply with a bank statement screenshot and I'll escalate to Finance.

Kind regards,
[[Lwazi|PERSON]]
ShopNest Customer Care

--- Reply from requester, [[04 Mar 2026|DATE]] 11:40 ---
ok thank you, I will wait""",

"""Subject: RE: RE: STILL NO REFUND!!!!

THIS IS THE FOURTH TIME I AM WRITING TO YOU PEOPLE. I RETURNED THE DELL LAPTOP ON [[FEB 2|DATE]] AND I STILL HAVE NOT GOT MY MONEY BACK. YOUR AGENT [[KEVIN|PERSON]] PROMISED ME IT WOULD BE DONE IN 3 DAYS. THAT WAS 3 WEEKS AGO. IF I DON'T HEAR BACK TODAY I AM CALLING MY BANK AND FILING A CHARGEBACK AND REPORTING YOU TO THE BBB.

[[DONNA HUTCHINSON|PERSON]]
ORDER 771-20934-A""",

"""pls reset my password, locked out again. username is [[rpatel84|PERSONAL_ID]]. thx - [[Raj|PERSON]]""",

"""Hi Mr. [[Okafor|PERSON]],

Thank you for your patience. I've escalated this to our Level 2 team and Ms. [[Chen|PERSON]] from Returns will contact you within 24 hours.

Best regards,

[[Grace Mwangi|PERSON]]
Customer Success Specialist | Northwind Appliances
Direct: [[+1 (415) 555-0192|PHONE]]
[[grace.mwangi@northwind-appliances.com|EMAIL]]
[[www.northwind-appliances.com|URL]]

-----Original Message-----
From: [[Emeka Okafor|PERSON]] <[[emeka.okafor77@gmail.com|EMAIL]]>
Sent: [[Monday, March 2, 2026|DATE]] 4:51 PM
To: Customer Care <[[care@northwind-appliances.com|EMAIL]]>
Subject: Broken dishwasher - model NW-DW450

Hello,

The dishwasher I bought in [[January|DATE]] is leaking from the door seal. The installer, a guy named [[Will|PERSON]] from your partner company, said it was a factory defect. I want a replacement, not a repair.

[[Emeka Okafor|PERSON]]
[[12 Brookfield Terrace|STREET_ADDRESS]], [[Oakland|GPE]], [[CA|GPE]] [[94611|POSTCODE]]""",

"""Dear Sir/Madam,

I am writing you regarding to my booking HX-88213 for hotel in [[Lisbon|GPE]]. I have make payment two times by mistake, please kindly refund one of them. My name on booking is [[Nguyen Van Duc|PERSON]] and my friend name [[Pham Thi Lan|PERSON]] is also in same room.

Waiting for your kind reply.

Best Regard,
[[Duc|PERSON]]""",

"""[Internal note - Ticket #90127]
Agent: [[Sibusiso Khumalo|PERSON]]
Customer says Wells Fargo declined the charge twice. Not an issue on our side - gateway log shows "Do Not Honor" from issuer. Advised customer to call bank. Tagging [[Hannah Berg|PERSON]] from Payments in case they want to whitelist.""",

"""[10:42] Chat started
[10:42] [[Amaru|PERSON]] (Agent): Hi! You're chatting with [[Amaru|PERSON]]. How can I help today?
[10:43] Customer: hi my order hasnt arrived its been 2 weeks
[10:43] [[Amaru|PERSON]] (Agent): Sorry to hear that! Can I have your order number and the email on the account?
[10:44] Customer: 5531092, [[faith.okoro@yahoo.com|EMAIL]]
[10:45] [[Amaru|PERSON]] (Agent): Thanks [[Faith|PERSON]]. I see it's stuck at the [[Memphis|GPE]] hub. I'll open a trace with FedEx and send you an update within 48h.
[10:45] Customer: ok thanks""",

"""Hi team,

Please find attached the updated invoice for PO 4500123987. The previous one had the wrong VAT number.

Cheers,
[[Mark|PERSON]]

[[Mark Oyelowo-Hughes|PERSON]]
Accounts Receivable Lead
Harbourline Logistics Ltd
[[Unit 4, 88 Quayside Road|STREET_ADDRESS]], [[Bristol|GPE]] [[BS1 6UF|POSTCODE]]
T: [[+44 117 496 0384|PHONE]] | M: [[+44 7700 900 615|PHONE]]

This email and any attachments are confidential and intended solely for the addressee. If you have received this email in error please notify the sender immediately and delete it. Harbourline Logistics Ltd is registered in [[England|GPE]] and [[Wales|GPE]], company no. 08812345.""",

"""On [[Tue, 3 Mar 2026|DATE]] at 14:05, [[Ana Lúcia Ferreira|PERSON]] <[[analucia.ferreira@outlook.com|EMAIL]]> wrote:
> Hello, I was charged for Premium but my account still shows Basic.
> Can you fix it?

Hi [[Ana Lúcia|PERSON]],

Sorry about that! There was a sync delay on our side. I've manually upgraded your account - please log out and back in. If Premium still doesn't show, reply here and I'll look again.

Best,
[[Tomás|PERSON]]
Streamly Support""",

"""Subject: Change of address - Customer ID [[C-00418852|PERSONAL_ID]]

Hello,

I've moved and need to update my billing address. New address:
[[Ji-hoon Park|PERSON]]
[[Apt 1203, 45 Gangnam-daero|STREET_ADDRESS]]
[[Seoul|GPE]] [[06241|POSTCODE]]
[[South Korea|GPE]]

Old address was in [[Busan|GPE]]. Phone number stays the same: [[+82 10-5555-2831|PHONE]].

Thanks,
[[Ji-hoon|PERSON]]""",

"""Thanks [[Hope|PERSON]], that fixed it! Have a great weekend.""",

"""Subject: Wrong item delivered

I ordered the Ford F-150 floor mats (part #FL3Z-1513086) and received mats for a Honda Civic instead. I need these before Saturday because I'm driving to my cousin's wedding. I picked up the box at the locker near the McDonald's on Baker Street - it was clearly labelled for my order.

Order: 114-8820391-5521
Name: [[Darius Moradi|PERSON]]""",

"""From: [[Priya Raghunathan|PERSON]]
To: Escalations Team
Cc: [[Oliver Brandt|PERSON]]; [[Zainab Yusuf|PERSON]]
Subject: ESCALATION - VIP customer - Account [[7730021|PERSONAL_ID]]

Team,

Customer Mr. [[Hamid Karimi|PERSON]] (CEO of a reseller, ~$200k/yr) reports that 40 licenses were deactivated overnight. [[Oliver|PERSON]], can you check whether the renewal job failed? [[Zainab|PERSON]] - please hold off on the auto-email campaign to this account until we resolve.

I'll call Mr. [[Karimi|PERSON]] at 3pm EST.

[[Priya|PERSON]]""",

"""Hi [[Carlos|PERSON]],

Following up on our call - we can onboard the Johnson & Johnson procurement team next week. Their contact is [[Sarah Mitchell|PERSON]] (Procurement Manager). She mentioned Wells Fargo is their bank for the ACH setup.

Let me know if Thursday works.

Thanks,
[[Jasmine Koh|PERSON]]
Enterprise Account Executive""",

"""WHY WAS I CHARGED TWICE?? FIX IT NOW. - [[GARY|PERSON]]""",

"""[Zendesk] Request #60514: "Can't log in to the app"

Your request (60514) has been updated. To add additional comments, reply to this email.

[[Ayaan Qureshi|PERSON]] (Helpdesk)
[[Mar 5, 2026|DATE]], 08:17 GMT

Hi [[Bilal|PERSON]],

Thanks for the screenshot. It looks like your account is still linked to your old work email ([[bilal.a@oldcorp.net|EMAIL]]). I've changed the login to [[bilal.ahmed.uk@gmail.com|EMAIL]] - please try resetting your password from the login page.

[[Ayaan|PERSON]]

[[Bilal Ahmed|PERSON]]
[[Mar 4, 2026|DATE]], 19:52 GMT

I keep getting "invalid credentials" even after resetting. Screenshot attached.""",

"""helo, i buyed the blender last weak and its making a burnign smell when i use it, can i get a new one or my mony back. my name is [[Olumide Babatunde|PERSON]], order number 4471-XX. pls help thank you""",

"""Hi [[Will|PERSON]],

Will do - I've passed your feedback on to our product team. They'll review the request for dark mode in the next planning cycle.

Best,
[[Sunny|PERSON]]""",

"""Subject: Automatic reply: Invoice query

Thank you for your email. I am out of the office until [[Monday 16 March 2026|DATE]] with limited access to email. For urgent billing matters please contact [[Bronwyn Price|PERSON]] on [[+61 2 5550 1187|PHONE]] or [[billing@kangaroocloud.com.au|EMAIL]].

Regards,
[[Callum Fraser|PERSON]]""",

"""Subject: RE: Warranty claim WC-22817 - Samsung fridge

Hi Ms. [[Sato|PERSON]],

A technician from Appliance Pros ([[Kenneth|PERSON]]) will visit on [[Friday 13 March|DATE]] between 8am and 12pm. Please make sure an adult is home.

Regards,
[[Daniela Popescu|PERSON]]
Warranty Team

> On [[10 Mar 2026|DATE]], at 21:14, [[Akiko Sato|PERSON]] <[[akiko.sato@icloud.com|EMAIL]]> wrote:
>
> Any update? The fridge is still not cooling and I've had to throw away food twice.
>
>> On [[6 Mar 2026|DATE]], [[Daniela Popescu|PERSON]] <[[d.popescu@homeplus-warranty.com|EMAIL]]> wrote:
>>
>> Dear Ms. [[Sato|PERSON]], we have received your claim and will schedule a technician within 5 business days.""",

"""Hello support,

I am [[Svetlana Ivanova|PERSON]], I have subscription since [[2023|DATE]]. Yesterday I try to pay by Visa card and system say "payment failed". Please check what is problem. My customer number is [[88-301-554|PERSONAL_ID]].

With respect,
[[Svetlana|PERSON]]""",

"""Ticket #31877 | Status: Resolved | Agent: [[Nkechi Onyekachi|PERSON]]
Customer: [[Paddy Doyle|PERSON]] | Phone: [[087 555 0193|PHONE]] | Email: [[paddydoyle@eircom.net|EMAIL]]

Call notes ([[Nkechi|PERSON]]): Cust rang re broadband outage in [[Galway|GPE]] since Sat. Confirmed area outage on our side, fixed Mon 2pm. Applied €10 credit as goodwill. Cust happy, closing ticket.""",

"""Dear Customer Relations,

I am writing to complain about the treatment I received at your Hillcrest branch on [[28 February|DATE]]. The store manager, a Mr. [[Moody|PERSON]], was extremely rude when I tried to return a faulty kettle with a receipt. He said I was "being difficult" and refused the return.

I have shopped with you for 15 years and I have never been treated like this.

Yours faithfully,
[[Margaret O'Connell|PERSON]]
[[7 Larkspur Close|STREET_ADDRESS]]
[[Ipswich|GPE]]
[[IP4 2QT|POSTCODE]]""",

"""Dear Mrs [[O'Connell|PERSON]],

Thank you for taking the time to write to us, and I am very sorry to hear about your experience. I have shared your letter with our Regional Manager, [[Deepak Chauhan|PERSON]], who will be speaking with the store team directly.

I have arranged a full refund of £34.99 for the kettle and added a £15 gift card to your account as an apology.

Kind regards,
[[Rebecca Sterling|PERSON]]
Customer Relations Team""",

"""Agent note: called cust back x2, no answer, left VM. Will try again tmrw AM. Cust pref contact by SMS per profile. -[[Joy|PERSON]]""",

"""---------- Forwarded message ---------
From: [[Tran Minh Khoa|PERSON]] <[[khoa.tran@vinatech.vn|EMAIL]]>
Date: [[Wed, Mar 4, 2026|DATE]] at 10:22 AM
Subject: API rate limits
To: <[[sales@cloudhive.io|EMAIL]]>

Dear Sales team,

We are hitting 429 errors when calling /v2/orders more than 100 times per minute. Our account ID is [[ACC-55219|PERSONAL_ID]]. Can we increase the limit? We are on the Business plan.

Regards,
[[Khoa|PERSON]]
CTO, VinaTech JSC
[[Ho Chi Minh City|GPE]]

---

Hi [[Sergei|PERSON]], can you take this one? Looks like an upsell to Enterprise.
- [[Marta|PERSON]]""",

"""Subject: Data deletion request under GDPR Art. 17

To the Data Protection Officer,

I hereby request the erasure of all personal data you hold about me. Details to identify my account:

Full name: [[Henrike Schäfer|PERSON]]
Date of birth: [[14.07.1988|DATE_OF_BIRTH]]
Email: [[h.schaefer@posteo.de|EMAIL]]
Customer number: [[300-7718-22|PERSONAL_ID]]

Please confirm completion in writing within one month as required.

[[Henrike Schäfer|PERSON]]
[[Hamburg|GPE]], [[2 March 2026|DATE]]""",

"""Dear Ms [[Schäfer|PERSON]],

We confirm receipt of your erasure request (ref. DSR-2026-0412) dated [[2 March 2026|DATE]]. We will complete the request within 30 days and confirm once done. Please note that invoices must be retained for 10 years under German tax law; these will be restricted rather than deleted.

Yours sincerely,
Dr. [[Lukas Brandt|PERSON]]
Data Protection Officer""",

"""Hi [[Summer|PERSON]],

Your subscription was cancelled on [[March 1|DATE]], but you're still within the 14-day grace period, so you can reactivate anytime before [[March 15|DATE]] without losing your playlists.

Cheers,
[[Mateus|PERSON]] | Tunebox Support""",
]

SUPPORT += [
"""Ticket #77102 assigned to: [[Dawn Reyes|PERSON]]
Requester: [[Hunter Mason|PERSON]]
Subject: app crashes when uploading photos

[[Hunter|PERSON]] says the iOS app crashes every time he uploads more than 5 photos at once. iPhone 13, latest iOS. Could not reproduce on iPhone 15. Escalating to mobile team ([[Ravi|PERSON]] / [[Chloe|PERSON]]). Workaround given: upload in batches of 3.""",

"""Hi [[Bill|PERSON]],

I've reviewed your bill for [[February|DATE]] and you were indeed charged twice for the international roaming add-on. A credit of $25.00 will appear on your next bill.

Account: [[556-228-9014|PERSONAL_ID]]

Thanks for your patience,
[[Aisha|PERSON]]""",

"""From: [[Oksana Melnyk|PERSON]] <[[oksana.melnyk@agroterra.ua|EMAIL]]>
Sent: [[Thursday, 5 March 2026|DATE]] 07:48
To: Support <[[support@fieldsense.com|EMAIL]]>
Cc: [[Andriy Bondarenko|PERSON]] <[[a.bondarenko@agroterra.ua|EMAIL]]>
Subject: Sensors offline - [[Poltava|GPE]] farm site

Good morning,

Since yesterday evening 14 soil sensors at our [[Poltava|GPE]] site are showing "offline". Gateway LED is green. [[Andriy|PERSON]] (our field engineer) power-cycled the gateway at 06:30 with no change.

Can we have a call today? I am available 10:00-14:00 [[Kyiv|GPE]] time. My mobile is [[+380 67 555 2213|PHONE]].

Best regards,
[[Oksana Melnyk|PERSON]]
Operations Manager
Agroterra LLC""",

"""Hi [[Oksana|PERSON]],

Thanks for the detail. Our logs show the gateway is online but the sensors lost their LoRa pairing after last night's firmware push (v4.2.1) - we've rolled it back. Sensors should reconnect within 30 minutes.

My colleague [[Bogdan|PERSON]] will call you at 11:00 [[Kyiv|GPE]] time to confirm. Sorry for the trouble.

Regards,
[[Fiona McAllister|PERSON]]
Tier 2 Support, FieldSense""",

"""your driver (name tag said "[[Rico|PERSON]]") threw my package over the fence and it landed in the pool. the box is soaked and the headphones inside dont turn on. I have it on my ring camera. I want a refund AND I want someone to talk to [[Rico|PERSON]].""",

"""Replacement shipment request

Ship to:
[[Alejandra Gutiérrez Morales|PERSON]]
[[Calle de Alcalá 142, 3º B|STREET_ADDRESS]]
[[28009|POSTCODE]] [[Madrid|GPE]]
[[Spain|GPE]]
Tel: [[+34 612 555 478|PHONE]]

Item: Replacement charger (SKU CH-65W-EU)
Approved by: [[Jonas Lindqvist|PERSON]] (Team Lead)""",

"""Customer: Is there a real person I can talk to? Your bot keeps sending me the same article.
Agent ([[Chidi|PERSON]]): Hi, I'm [[Chidi|PERSON]], a real person :) Sorry about the bot! What's going on?
Customer: The [[Grace Hopper|PERSON]] biography I preordered was cancelled with no explanation.
Agent ([[Chidi|PERSON]]): Let me check... it looks like the publisher delayed it to [[June|DATE]]. I can restore your preorder at the original price.""",

"""TO WHOEVER IS IN CHARGE,

I HAVE CALLED 6 TIMES. I SPOKE TO "[[JESSICA|PERSON]]", "[[AHMED|PERSON]]" AND SOMEONE CALLED "[[PAT|PERSON]]" AND NOBODY CAN TELL ME WHERE MY SOFA IS. I PAID £1,299 IN [[DECEMBER|DATE]]. IT IS NOW [[MARCH|DATE]].

I WANT A FULL REFUND OR I AM GOING TO TRADING STANDARDS.

MR [[D. O'ROURKE|PERSON]]""",

"""Shift handover - EMEA queue - [[05/03/2026|DATE]]

Open escalations:
- #88120 - Hr. [[Bauer|PERSON]] (Siemens contact), SSO broken after cert rotation. Waiting on Eng ([[Lina|PERSON]]).
- #88131 - Mme [[Lefèvre|PERSON]], wants invoice in French. Done by [[Clément|PERSON]], needs QA.
- #88140 - [[Yusuf|PERSON]] ([[Istanbul|GPE]] reseller), duplicate licenses. Pending Finance.

Notes: [[Rose|PERSON]] is out sick tomorrow, [[Bongani|PERSON]] covering her queue.
- [[Ingrid|PERSON]]""",

"""Can someone from billing call me back on [[0412 555 019|PHONE]]? Thanks, [[Mohammed|PERSON]].""",

"""> How would you rate your experience with [[Carmen|PERSON]] today? (1-5)
5

> Anything else you'd like to tell us?
[[Carmen|PERSON]] was super patient with my mom who isn't great with computers. Give her a raise!!""",

"""Order #DL-77210 confirmation

Hi [[Ngozi|PERSON]],

Thanks for your order! Here's a summary:

1 x Dell XPS 14 (Platinum)   $1,499.00
1 x Dell Premier Backpack     $89.99
Subtotal: $1,588.99

Shipping to:
[[Ngozi Chukwu|PERSON]]
[[2207 Sycamore St, Unit 5|STREET_ADDRESS]]
[[Austin|GPE]], [[TX|GPE]] [[78702|POSTCODE]]

Questions? Visit [[https://support.example-shop.com/orders|URL]] or call [[1-800-555-0199|PHONE]].""",

"""From: [[Tim Banks|PERSON]]
To: Helpdesk
Subject: Outlook keeps asking for password

Morning,
Since the update last night Outlook asks for my password every 10 min. Tried restarting. Laptop tag IT-04471. Employee ID [[100238|PERSONAL_ID]].
[[Tim|PERSON]]
Facilities, 3rd floor""",

"""Hi [[Tim|PERSON]],

Thanks - known issue after the 2.3 patch. I've cleared your cached credentials remotely; please restart Outlook once more. If it still prompts, give me a shout on Teams and I'll remote in.

Cheers,
[[Ellie Cook|PERSON]]
IT Service Desk""",

"""Claim No: HC-2026-00931
Policyholder: [[Arash Tehrani|PERSON]]
Member ID: [[BCX448812007|PERSONAL_ID]]
Date of service: [[02/11/2026|DATE]]
Provider: [[Riverside Orthopedic Associates|FAC]]

Dear Mr. [[Tehrani|PERSON]],

We have reviewed your claim for the MRI of your left knee. This claim was denied because prior authorization was not obtained. Your provider, Dr. [[Elaine Whitfield|PERSON]], may submit a retro-authorization request within 60 days of the denial date.

If you have questions, call Member Services at [[1-888-555-0142|PHONE]] (TTY 711).

Sincerely,
Claims Department
Bluecrest Health Plan""",

"""hi i talked to ur agent [[jenny|PERSON]] yesterday and she said she will send me a return label but i didnt get anything?? my email is the same one [[kylie.m.brooks@hotmail.com|EMAIL]]. can u resend. thx [[kylie|PERSON]]""",

"""Closing as dup of #55012. - [[Marek|PERSON]]""",

"""Dear Support Team,

My name is [[Liu Yang|PERSON]] (family name [[Liu|PERSON]]). I bought the annual plan on [[2026-01-18|DATE]] but the invoice shows name "[[Yang Liu|PERSON]]" which is wrong order and my company finance can not accept. Can you please reissue invoice with name "[[LIU Yang|PERSON]]" and company "Shenzhen Huaxin Trading Co., Ltd."?

Thank you very much!
[[Liu Yang|PERSON]]""",

"""Hi [[Liu Yang|PERSON]],

No problem - I've reissued invoice INV-20260118-332 with the name "[[LIU Yang|PERSON]]" and your company name. You'll find it under Billing > Invoices.

Best wishes,
[[Hoang Anh|PERSON]] | Billing Support""",

"""Subject: Reservation for Ms. [[Page|PERSON]] - 3 nights

Hi Front Desk,

Just confirming the reservation for our VP, Ms. [[Rebecca Page|PERSON]], arriving [[March 18|DATE]] and departing [[March 21|DATE]]. Please put the room on the company card on file (Cardwell & Rice LLP). She'll need a late checkout on [[the 21st|DATE]] if possible.

Thank you,
[[Tanisha Greene|PERSON]]
Executive Assistant to [[Rebecca Page|PERSON]]
Cardwell & Rice LLP | [[500 Boylston St|STREET_ADDRESS]], [[Boston|GPE]], [[MA|GPE]] [[02116|POSTCODE]] | [[(617) 555-0130|PHONE]]""",

"""The JoyRide stroller's front wheel snapped after 2 months. My daughter [[Ivy|PERSON]] was in it at the time (she's fine, thank god). This is a safety issue. I expect a response from someone senior.

- [[Natalia Kowalska|PERSON]]""",

"""Olá / Hello [[João|PERSON]],

Following our call today: your case number is 2026-BR-4431. As agreed, our technician [[Thiago Nascimento|PERSON]] will visit your address ([[Rua Augusta 1508|STREET_ADDRESS]], [[São Paulo|GPE]]) on [[9 March|DATE]] between 14:00 and 18:00.

Atenciosamente,
[[Larissa Campos|PERSON]]
Suporte Técnico""",

"""Subject: Fwd: Urgent: verify your account

Hi IT, got this weird email pretending to be from Microsoft, sender was "[[Bill Gates|PERSON]] Security Team" lol. Not clicking. Forwarding for you to block.

[[Ruth|PERSON]]""",

"""Dear Valued Customer,

Thank you for contacting McDonald's Customer Services. We are sorry your order at our [[Dundee|GPE]] restaurant was incorrect. A voucher for a free meal has been sent to your registered email address.

Kind regards,
[[Eilidh|PERSON]]
McDonald's [[UK|GPE]] Customer Services""",

"""#40211 - reassigned from [[Ed|PERSON]] to [[Jo|PERSON]] ([[Ed|PERSON]] on PTO until [[3/16|DATE]]). Cust ([[Al Sharma|PERSON]]) needs callback re: SIM swap, verified via PIN. [[Jo|PERSON]] pls call before 5pm.""",

"""Hi Mrs. [[Adeyemi|PERSON]],

Your prescription refill is ready for delivery. Our courier, [[Kwabena|PERSON]], will arrive between 2 and 4pm today. Please have photo ID ready.

- [[Naledi|PERSON]], CarePlus Pharmacy""",

"""Thanks [[Duc|PERSON]], all sorted on my end.

On [[Fri, Mar 6, 2026|DATE]] at 3:12 PM [[Duc Le|PERSON]] <[[duc.le@pixelforge.io|EMAIL]]> wrote:
> Hey [[Marcus|PERSON]], the DNS change has propagated. Can you confirm your site loads at [[https://www.marcusreid.design|URL]] ?
>
> On [[Thu, Mar 5, 2026|DATE]] at 11:40 AM [[Marcus Reid|PERSON]] <[[hello@marcusreid.design|EMAIL]]> wrote:
>> Hi, I updated the A record to 185.199.108.153 like you said but still seeing the old site.""",

"""Hi Mr. [[Young|PERSON]],

I'm sorry our agent [[Brooke|PERSON]] was unable to resolve this on the phone. I've looked at your account and the late fee was applied in error - our payment processor was down on [[the 1st|DATE]]. The fee has been reversed.

Regards,
[[Sterling Washington|PERSON]]
Billing Supervisor""",

"""ATTN: MR. [[OLUWAFEMI ADEWALE|PERSON]]
RE: CONTAINER MSKU 778214-3 HELD AT [[APAPA|GPE]], [[LAGOS|GPE]]
CUSTOMS REQUIRE FORM M AND PROFORMA INVOICE. PLS SEND TO OUR AGENT MR. [[CHIDUBEM NWOSU|PERSON]] BY [[10 MAR 2026|DATE]] TO AVOID DEMURRAGE.
REGARDS
CAPT. [[S. RAHMAN|PERSON]]
MAERSK LINE [[LAGOS|GPE]] OFFICE""",

"""Hi [[Joy|PERSON]],

Thanks for flagging! The "Christmas Carols for Kids" playlist was removed because the license from the label expired. We'll notify you if it comes back. In the meantime, [[Carol Kaye|PERSON]]'s bass sessions compilation is still available, which you mentioned you liked.

Best,
[[Arnav|PERSON]] from Tunebox""",

"""Subject: Points missing from my account

Hello, I flew [[London|GPE]]-[[New York|GPE]] on [[22 Feb|DATE]] (BA117) but the Avios haven't been added. Membership no. [[41877203|PERSONAL_ID]]. Name on ticket: MR [[STEPHEN ODHIAMBO WAWERU|PERSON]]. Boarding pass attached.""",

"""Dear Mr. [[Campbell|PERSON]],

Greetings from [[Manila|GPE]]! My name is [[Jericho|PERSON]] and I will be assisting you today. I understand that you are not able to access your voicemail. Kindly try to dial *86 and enter your 4-digit PIN. If still not working, kindly reply to this email and I will escalate to our technical team.

Thank you and have a blessed day!

[[Jericho Bautista|PERSON]]
Customer Care Associate""",
]

# ---------------------------------------------------------------------------
# conversion
# ---------------------------------------------------------------------------

MARK = re.compile(r"\[\[([^\[\]|]+?)\|([A-Z_]+)\]\]")


def parse(raw):
    raw = unicodedata.normalize("NFC", raw.strip("\n"))
    out, spans, pos = [], [], 0
    length = 0
    for m in MARK.finditer(raw):
        before = raw[pos:m.start()]
        out.append(before)
        length += len(before)
        surface, label = m.group(1), m.group(2)
        assert label in LABELS, (label, surface)
        assert surface == surface.strip(), ("whitespace at span edge", surface)
        spans.append([length, length + len(surface), label, surface])
        out.append(surface)
        length += len(surface)
        pos = m.end()
    out.append(raw[pos:])
    text = "".join(out)
    assert "[[" not in text and "]]" not in text, ("unparsed markup", text[:120])
    for s, e, _label, surface in spans:
        assert text[s:e] == surface, (text[s:e], surface)
    for a, b in itertools.pairwise(spans):
        assert a[1] <= b[0], ("overlap", a, b)
    return text, spans


def repeated_unmarked_warnings(text, spans):
    """Flag PERSON surfaces that also occur unmarked (same case) in the text;
    these were all reviewed by hand (e.g. 'Hi Will,\n\nWill do')."""
    warns = []
    marked = {(s, e) for s, e, lab, _ in spans}
    for _s, _e, label, surface in spans:
        if label != "PERSON":
            continue
        for m in re.finditer(r"(?<!\w)" + re.escape(surface) + r"(?!\w)", text):
            inside = any(a <= m.start() and m.end() <= b for a, b in marked)
            if not inside:
                warns.append((surface, m.start()))
    return sorted(set(warns))


def main():
    records = []
    for kind, items in (("clinical", CLINICAL), ("support_mail", SUPPORT)):
        for raw in items:
            text, spans = parse(raw)
            records.append({"text": text,
                            "spans": [[s, e, lab] for s, e, lab, _ in spans],
                            "kind": kind})
            for w in repeated_unmarked_warnings(text, spans):
                print("note: unmarked same-case occurrence", w, "in", repr(text[:50]),
                      file=sys.stderr)
    texts = [r["text"] for r in records]
    assert len(texts) == len(set(texts)), "duplicate texts"
    with open(OUT, "w", encoding="utf-8") as f:
        for r in records:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    # re-read and re-verify offsets from the file itself
    with open(OUT, encoding="utf-8") as f:
        back = [json.loads(line) for line in f]
    assert len(back) == len(records)

    kinds = Counter(r["kind"] for r in back)
    labels = Counter(lab for r in back for _, _, lab in r["spans"])
    by_kind = {k: Counter(lab for r in back if r["kind"] == k for _, _, lab in r["spans"])
               for k in kinds}
    print(f"wrote {len(back)} texts to {OUT}")
    print("texts per kind:")
    for k, n in sorted(kinds.items()):
        print(f"  {k:14s} {n}")
    print("spans per label (all | clinical | support_mail):")
    for lab, n in labels.most_common():
        print(f"  {lab:15s} {n:4d} | {by_kind.get('clinical', {}).get(lab, 0):4d} | "
              f"{by_kind.get('support_mail', {}).get(lab, 0):4d}")
    print(f"  {'TOTAL':15s} {sum(labels.values()):4d}")
    print("texts with no PERSON span:",
          sum(1 for r in back if not any(lab == "PERSON" for *_, lab in r["spans"])))


if __name__ == "__main__":
    main()
