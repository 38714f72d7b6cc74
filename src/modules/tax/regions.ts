/**
 * The buyer's state or province where the tax depends on it (the US, Canada):
 * the one the checkout was given (`billing_address.state`), else one read
 * from the postcode. Both readings are estimates of where the buyer is, kept
 * on the order as evidence with the postcode they came from.
 */

const US_STATES = new Set(
  `AL AK AZ AR CA CO CT DE DC FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS
   MO MT NE NV NH NJ NM NY NC ND OH OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY`.split(
    /\s+/,
  ),
);

const CA_PROVINCES = new Set(
  'AB BC MB NB NL NS NT NU ON PE QC SK YT'.split(' '),
);

/**
 * USPS ZIP code prefixes (the first three digits) by state, as ranges:
 * `[first, last, state]`. Prefixes of military post (AA/AE/AP) and of
 * territories (PR, VI, GU) are absent, so such a ZIP names no state.
 */
const ZIP_PREFIXES: [number, number, string][] = [
  [5, 5, 'NY'],
  [10, 27, 'MA'],
  [28, 29, 'RI'],
  [30, 38, 'NH'],
  [39, 49, 'ME'],
  [50, 59, 'VT'],
  [60, 69, 'CT'],
  [70, 89, 'NJ'],
  [100, 149, 'NY'],
  [150, 196, 'PA'],
  [197, 199, 'DE'],
  [200, 200, 'DC'],
  [201, 201, 'VA'],
  [202, 205, 'DC'],
  [206, 219, 'MD'],
  [220, 246, 'VA'],
  [247, 268, 'WV'],
  [270, 289, 'NC'],
  [290, 299, 'SC'],
  [300, 319, 'GA'],
  [320, 339, 'FL'],
  [341, 349, 'FL'],
  [350, 369, 'AL'],
  [370, 385, 'TN'],
  [386, 397, 'MS'],
  [398, 399, 'GA'],
  [400, 427, 'KY'],
  [430, 459, 'OH'],
  [460, 479, 'IN'],
  [480, 499, 'MI'],
  [500, 528, 'IA'],
  [530, 549, 'WI'],
  [550, 567, 'MN'],
  [569, 569, 'DC'],
  [570, 577, 'SD'],
  [580, 588, 'ND'],
  [590, 599, 'MT'],
  [600, 629, 'IL'],
  [630, 658, 'MO'],
  [660, 679, 'KS'],
  [680, 693, 'NE'],
  [700, 714, 'LA'],
  [716, 729, 'AR'],
  [730, 732, 'OK'],
  [733, 733, 'TX'],
  [734, 749, 'OK'],
  [750, 799, 'TX'],
  [800, 816, 'CO'],
  [820, 831, 'WY'],
  [832, 838, 'ID'],
  [840, 847, 'UT'],
  [850, 865, 'AZ'],
  [870, 884, 'NM'],
  [885, 885, 'TX'],
  [889, 898, 'NV'],
  [900, 961, 'CA'],
  [967, 968, 'HI'],
  [970, 979, 'OR'],
  [980, 994, 'WA'],
  [995, 999, 'AK'],
];

/** Canada Post's forward sortation areas: the first letter is the province. */
const POSTCODE_LETTERS: Record<string, string> = {
  A: 'NL',
  B: 'NS',
  C: 'PE',
  E: 'NB',
  G: 'QC',
  H: 'QC',
  J: 'QC',
  K: 'ON',
  L: 'ON',
  M: 'ON',
  N: 'ON',
  P: 'ON',
  R: 'MB',
  S: 'SK',
  T: 'AB',
  V: 'BC',
  Y: 'YT',
};

function stateOfZip(zip: string): string | null {
  const match = /^(\d{3})\d{2}(?:-?\d{4})?$/.exec(zip.replace(/\s+/g, ''));
  if (!match) return null;
  const prefix = Number(match[1]);
  const range = ZIP_PREFIXES.find(([lo, hi]) => prefix >= lo && prefix <= hi);
  return range ? range[2] : null;
}

function provinceOfPostcode(postcode: string): string | null {
  const code = postcode.replace(/\s+/g, '').toUpperCase();
  if (!/^[A-Z]\d[A-Z]\d[A-Z]\d$/.test(code)) return null;
  // X is both territories: X0A–X0C are Nunavut, the rest the Northwest Territories.
  if (code[0] === 'X') return /^X0[ABC]/.test(code) ? 'NU' : 'NT';
  return POSTCODE_LETTERS[code[0]] ?? null;
}

/**
 * The region code (`CA`, `ON`) of a US or Canadian buyer, or null where it
 * does not matter or cannot be told. A given state wins over the postcode;
 * a state that is not one of the country's is ignored (null when the
 * postcode does not tell either).
 */
export function buyerRegion(
  country: string,
  state: string | null,
  postcode: string | null,
): string | null {
  const given = state?.trim().toUpperCase() ?? '';
  if (country === 'US') {
    if (US_STATES.has(given)) return given;
    return postcode ? stateOfZip(postcode) : null;
  }
  if (country === 'CA') {
    if (CA_PROVINCES.has(given)) return given;
    return postcode ? provinceOfPostcode(postcode) : null;
  }
  return null;
}
