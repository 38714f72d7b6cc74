/**
 * What the shipped library's rate table does not say: which US states tax
 * digital goods and electronically supplied services, and the reduced rates
 * some countries apply to e-books. Both are estimates as of the date below,
 * kept in one place so that an update is one reviewed diff.
 */

/** The date these tables were last checked against their sources. */
export const DIGITAL_RULES_DATE = '2025-11-01';

/**
 * US states that tax digital products (downloads, e-books, streamed or
 * hosted software) at the state level, per the states' published guidance
 * as summarised by the Streamlined Sales Tax Governing Board's taxability
 * matrix ("specified digital products") and the states' own tax bulletins,
 * with each state's base rate in percent as its revenue department
 * publishes it (Utah: the 6.1 % statewide minimum; Louisiana: 5 % from
 * 2025). Local rates are not added: an estimate. The library's US table is
 * not used: several of its state rates are out of date (Ohio 5.5 % for
 * 5.75 %, Louisiana 4 % for 5 %). States absent here (California, Florida,
 * Georgia, Illinois, New York, …) do not tax electronically delivered
 * digital goods, or only some kinds a store could not tell apart: no tax.
 */
export const US_DIGITAL_TAX_STATES: Record<string, number> = {
  AL: 4, // Ala. Admin. Code r. 810-6-1-.37: digital transmissions of software, e-books
  AR: 6.5, // Ark. Code § 26-52-301: specified digital products
  AZ: 5.6, // Ariz. TPT ruling TPR 93-48: digital goods as tangible property
  CO: 2.9, // Colo. HB 21-1312: digital goods included in tangible personal property
  CT: 6.35, // Conn. Gen. Stat. § 12-407(a)(13): digital goods
  DC: 6, // D.C. Code § 47-2001(n)(1)(N): digital goods
  HI: 4, // Hawaii GET applies to all sales of services and goods
  ID: 6, // Idaho Code § 63-3616: digital downloads with permanent right
  IN: 7, // Ind. Code § 6-2.5-4-16.4: specified digital products
  IA: 6, // Iowa Code § 423.2(1)(a)(2): specified digital products
  KY: 6, // Ky. Rev. Stat. § 139.200: digital property
  LA: 5, // La. Act 2024-5 (HB 8): digital products from 2025
  MD: 6, // Md. Code Tax-Gen. § 11-101: digital products from 2021
  ME: 5.5, // Me. Rev. Stat. tit. 36 § 1752(17): digital products
  MN: 6.875, // Minn. Stat. § 297A.61(3)(k): specified digital products
  MS: 7, // Miss. Code § 27-65-26: digital goods
  NE: 5.5, // Neb. Rev. Stat. § 77-2701.16(9): digital products
  NJ: 6.625, // N.J. Stat. § 54:32B-3(a): specified digital products
  NM: 4.875, // N.M. GRT on all services and digital goods
  NC: 4.75, // N.C. Gen. Stat. § 105-164.4(a)(6b): digital property
  OH: 5.75, // Ohio Rev. Code § 5739.01(B)(12): specified digital products
  PA: 6, // 72 P.S. § 7201(m): digital downloads
  RI: 7, // R.I. Gen. Laws § 44-18-7.1(g)(ix): specified digital products
  SD: 4.2, // S.D. Codified Laws § 10-45-2.4: products transferred electronically
  TN: 7, // Tenn. Code § 67-6-233: specified digital products
  TX: 6.25, // Tex. Tax Code § 151.009: digital goods as tangible property
  UT: 6.1, // Utah Code § 59-12-103(1)(m): specified digital products
  VT: 6, // Vt. Stat. tit. 32 § 9771(8): specified digital products
  WA: 6.5, // RCW 82.04.192: digital products
  WI: 5, // Wis. Stat. § 77.52(1)(d): specified digital goods
  WY: 4, // Wyo. Stat. § 39-15-103(a)(i)(R): specified digital products
};

/**
 * Reduced VAT/GST rates for electronically supplied books (tax code
 * `ebook`), in percent, from the European Commission's "VAT rates applied in
 * the Member States of the European Union" (taxation_customs, 2025 edition)
 * for the EU, and from HMRC (VAT Notice 701/10: e-publications zero-rated
 * since 1 May 2020), Skatteetaten (Norway: e-books zero-rated, mval. § 6-4)
 * and the Swiss ESTV (2.6 % reduced rate for books, including electronic
 * ones, since 1 January 2024). A country absent here charges its standard
 * rate on e-books: Denmark (no reduced rate), every country outside Europe
 * covered here, and Bulgaria, Cyprus and Latvia, whose e-book rates were not
 * confirmed for this table (set them with TAX_RATES if they matter to you).
 */
export const EBOOK_RATES: Record<string, number> = {
  AT: 10,
  BE: 6,
  HR: 5,
  CZ: 0,
  EE: 9,
  FI: 10,
  FR: 5.5,
  DE: 7,
  GR: 6,
  HU: 5,
  IE: 9,
  IT: 4,
  LT: 9,
  LU: 3,
  MT: 5,
  NL: 9,
  PL: 5,
  PT: 6,
  RO: 11,
  SK: 5,
  SI: 5,
  ES: 4,
  SE: 6,
  GB: 0,
  NO: 0,
  CH: 2.6,
};

/** The 27 member states of the European Union (Greece as GR, not EL). */
export const EU_COUNTRIES = new Set(
  `AT BE BG HR CY CZ DK EE FI FR DE GR HU IE IT LV LT LU MT NL PL PT RO SK SI ES SE`.split(
    ' ',
  ),
);

/**
 * The countries the built-in provider charges tax in: the EU 27, the United
 * Kingdom, Norway, Switzerland, Australia, New Zealand, Canada and the US.
 * The library knows more countries; outside this list a store charges no
 * tax unless TAX_RATES names the country, because these are the rules this
 * code was checked against (e-book rates, B2B reverse charge, regions).
 */
export const COVERED_COUNTRIES = new Set([
  ...EU_COUNTRIES,
  'GB',
  'NO',
  'CH',
  'AU',
  'NZ',
  'CA',
  'US',
]);
