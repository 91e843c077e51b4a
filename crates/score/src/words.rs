//! The words a claim is made of besides the facts' own names: places and the
//! spellings news uses for them, generic political titles, the markers that put a
//! claim in the past (before the title, or after the name), and honorifics.
//!
//! The facts name offices the way Wikidata labels them ("Prime Minister of the
//! United Kingdom"); summaries write "Britain's prime minister", "the UK PM", "US
//! President", "Scottish first minister". A place here is a key with every spelling
//! that names it, so a qualifier found in a summary and one taken from an office's
//! label compare by key. A place need not hold an office in the facts: "Australia's
//! prime minister" with no Australian office in the facts is an office the facts do
//! not know (`unknown`), not a cue to pick another prime minister.

/// Places: the first spelling is the key; every spelling names it (names, short
/// forms, adjectives). Countries and the sub-national units that have their own
/// heads of government in English-language news.
pub const PLACES: &[&[&str]] = &[
    &[
        "United Kingdom",
        "UK",
        "U.K.",
        "Britain",
        "Great Britain",
        "British",
    ],
    &[
        "United States",
        "United States of America",
        "US",
        "U.S.",
        "USA",
        "U.S.A.",
        "America",
        "American",
    ],
    &["Scotland", "Scottish"],
    &["Wales", "Welsh"],
    &["Northern Ireland", "NI"],
    &["England", "English"],
    &["Ireland", "Republic of Ireland", "Irish"],
    &["Australia", "Australian"],
    &["New Zealand", "NZ"],
    &["Canada", "Canadian"],
    &["France", "French"],
    &["Germany", "German"],
    &["Italy", "Italian"],
    &["Spain", "Spanish"],
    &["Portugal", "Portuguese"],
    &["Netherlands", "Dutch"],
    &["Belgium", "Belgian"],
    &["Austria", "Austrian"],
    &["Switzerland", "Swiss"],
    &["Sweden", "Swedish"],
    &["Norway", "Norwegian"],
    &["Denmark", "Danish"],
    &["Finland", "Finnish"],
    &["Iceland", "Icelandic"],
    &["Poland", "Polish"],
    &["Hungary", "Hungarian"],
    &["Czech Republic", "Czechia", "Czech"],
    &["Greece", "Greek"],
    &["Turkey", "Turkish"],
    &["Russia", "Russian"],
    &["Ukraine", "Ukrainian"],
    &["Belarus", "Belarusian"],
    &["Israel", "Israeli"],
    &["Iran", "Iranian"],
    &["Iraq", "Iraqi"],
    &["Syria", "Syrian"],
    &["Egypt", "Egyptian"],
    &["Saudi Arabia", "Saudi"],
    &["Pakistan", "Pakistani"],
    &["India", "Indian"],
    &["China", "Chinese"],
    &["Japan", "Japanese"],
    &["South Korea", "Korean"],
    &["North Korea", "North Korean"],
    &["Taiwan", "Taiwanese"],
    &["Philippines", "Philippine", "Filipino"],
    &["Indonesia", "Indonesian"],
    &["Malaysia", "Malaysian"],
    &["Thailand", "Thai"],
    &["Vietnam", "Vietnamese"],
    &["Afghanistan", "Afghan"],
    &["Bangladesh", "Bangladeshi"],
    &["Sri Lanka", "Sri Lankan"],
    &["South Africa", "South African"],
    &["Nigeria", "Nigerian"],
    &["Kenya", "Kenyan"],
    &["Zimbabwe", "Zimbabwean"],
    &["Brazil", "Brazilian"],
    &["Argentina", "Argentine", "Argentinian"],
    &["Mexico", "Mexican"],
    &["Venezuela", "Venezuelan"],
    &["Colombia", "Colombian"],
    &["Chile", "Chilean"],
    &["Peru", "Peruvian"],
    &["Cuba", "Cuban"],
    &["European Union", "EU", "European"],
    &["London"],
    &["Catalonia", "Catalan"],
    &["Quebec"],
    &["Ontario"],
    &["New South Wales", "NSW"],
    &["Queensland"],
    &["Victoria"],
    &["California"],
    &["New York"],
    &["Texas"],
    &["Florida"],
];

/// Political titles news writes without a place, each with the head it stands for
/// ("PM" is "prime minister"). An office of the facts adds its own heads and names;
/// these make a title the facts do not know a claim of an unknown office instead of
/// no claim at all. Titles of companies or teams ("chief executive", "manager")
/// are not here: they are no office.
pub const TITLES: &[(&str, &str)] = &[
    ("president", "president"),
    ("vice president", "vice president"),
    ("vice-president", "vice president"),
    ("prime minister", "prime minister"),
    ("PM", "prime minister"),
    ("premier", "premier"),
    ("deputy prime minister", "deputy prime minister"),
    ("deputy PM", "deputy prime minister"),
    ("first minister", "first minister"),
    ("deputy first minister", "deputy first minister"),
    ("chancellor", "chancellor"),
    ("chancellor of the exchequer", "chancellor of the exchequer"),
    ("foreign secretary", "foreign secretary"),
    ("home secretary", "home secretary"),
    ("health secretary", "health secretary"),
    ("defence secretary", "defence secretary"),
    ("defense secretary", "defence secretary"),
    ("education secretary", "education secretary"),
    ("justice secretary", "justice secretary"),
    ("business secretary", "business secretary"),
    ("culture secretary", "culture secretary"),
    ("environment secretary", "environment secretary"),
    ("transport secretary", "transport secretary"),
    ("work and pensions secretary", "work and pensions secretary"),
    ("Brexit secretary", "brexit secretary"),
    ("secretary of state", "secretary of state"),
    ("foreign minister", "foreign minister"),
    ("finance minister", "finance minister"),
    ("defence minister", "defence minister"),
    ("interior minister", "interior minister"),
    ("senator", "senator"),
    ("governor", "governor"),
    ("Gov.", "governor"),
    ("Sen.", "senator"),
    ("mayor", "mayor"),
    ("leader", "leader"),
    ("party leader", "leader"),
    ("speaker", "speaker"),
    ("attorney general", "attorney general"),
    ("secretary-general", "secretary-general"),
    ("secretary general", "secretary-general"),
];

/// Words that state a claim about the past: "former", "ex-", "then-", "outgoing",
/// "late" (as in "the late prime minister"), "ousted", "deposed". "ex" and "then" count only with their
/// hyphen: "then President Obama" is as often "and then" as "then-president".
pub const PAST: &[&str] = &[
    "former",
    "ex",
    "then",
    "outgoing",
    "late",
    "erstwhile",
    "ousted",
    "deposed",
];

/// The past markers that count only when a hyphen follows ("ex-PM").
pub const PAST_NEEDS_HYPHEN: &[&str] = &["ex", "then"];

/// Words after a name (its possessive between or not) that point past the person's
/// time in office: "President X's successor", "the President X administration"
/// state that X held the title at some time, not on the article's day, so the claim
/// is about the past, as with "former". `true`: another holder's name may follow
/// ("President X's predecessor Y"), a claim that Y held the office at some time
/// too. Plurals count.
pub const POINTS_PAST: &[(&str, bool)] = &[
    ("successor", true),
    ("predecessor", true),
    ("administration", false),
];

/// Honorifics that may stand before a surname ("Mr Johnson, the PM").
pub const HONORIFICS: &[&str] = &[
    "Mr", "Mrs", "Ms", "Miss", "Dr", "Sir", "Dame", "Lord", "Lady", "Baroness",
];

/// Capitalized words that do not begin a person's name after a title ("President
/// Monday", "Prime Minister On Tuesday" in a headline): an unknown person is only
/// a run of capitalized words that are none of these.
pub const NOT_NAMES: &[&str] = &[
    "The",
    "A",
    "An",
    "And",
    "But",
    "Or",
    "On",
    "In",
    "At",
    "To",
    "Of",
    "For",
    "By",
    "With",
    "Is",
    "Was",
    "Has",
    "Had",
    "Said",
    "Says",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
    "I",
    "He",
    "She",
    "It",
    "We",
    "They",
    "This",
    "That",
    "Who",
    "Which",
    "When",
    "After",
    "Before",
    "As",
];
