/**
 * The three-letter codes an MRZ may carry for the issuing state and the nationality (ICAO Doc 9303
 * part 3): ISO 3166-1 alpha-3, plus ICAO's own codes (`D` for Germany, the British `GBD GBN GBO GBP
 * GBS`, the United Nations `UNO UNA UNK`, stateless and refugees `XXA XXB XXC XXX`, `EUE`, `RKS`
 * and the `X..` codes of other organisations). In the MRZ a code shorter than three letters is
 * padded with `<` (`D<<`), so codes are looked up without their fillers.
 */
const ICAO_CODES =
  'ABW AFG AGO AIA ALA ALB AND ANT ARE ARG ARM ASM ATA ATF ATG AUS AUT AZE BDI BEL BEN BES BFA BGD BGR BHR BHS ' +
  'BIH BLM BLR BLZ BMU BOL BRA BRB BRN BTN BVT BWA CAF CAN CCK CHE CHL CHN CIV CMR COD COG COK COL COM CPV CRI ' +
  'CUB CUW CXR CYM CYP CZE D DEU DJI DMA DNK DOM DZA ECU EGY ERI ESH ESP EST ETH EUE FIN FJI FLK FRA FRO FSM GAB ' +
  'GBD GBN GBO GBP GBR GBS GEO GGY GHA GIB GIN GLP GMB GNB GNQ GRC GRD GRL GTM GUF GUM GUY HKG HMD HND HRV HTI ' +
  'HUN IDN IMN IND IOT IRL IRN IRQ ISL ISR ITA JAM JEY JOR JPN KAZ KEN KGZ KHM KIR KNA KOR KWT LAO LBN LBR LBY ' +
  'LCA LIE LKA LSO LTU LUX LVA MAC MAF MAR MCO MDA MDG MDV MEX MHL MKD MLI MLT MMR MNE MNG MNP MOZ MRT MSR MTQ ' +
  'MUS MWI MYS MYT NAM NCL NER NFK NGA NIC NIU NLD NOR NPL NRU NTZ NZL OMN PAK PAN PCN PER PHL PLW PNG POL PRI ' +
  'PRK PRT PRY PSE PYF QAT REU RKS ROU RUS RWA SAU SDN SEN SGP SGS SHN SJM SLB SLE SLV SMR SOM SPM SRB SSD STP ' +
  'SUR SVK SVN SWE SWZ SXM SYC SYR TCA TCD TGO THA TJK TKL TKM TLS TON TTO TUN TUR TUV TWN TZA UGA UKR UMI UNA ' +
  'UNK UNO URY USA UZB VAT VCT VEN VGB VIR VNM VUT WLF WSM XBA XCC XCE XCO XDC XEC XES XIM XOM XPO XXA XXB XXC ' +
  'XXK XXX YEM ZAF ZMB ZWE';

const CODES: ReadonlySet<string> = new Set(ICAO_CODES.split(' '));

/** Codes ICAO uses on specimen documents (`UTO`, the fictitious state of Utopia). */
const SPECIMEN_CODES: ReadonlySet<string> = new Set(['UTO']);

/** The code without its `<` fillers: `D<<` → `D`. */
export function stripCodeFillers(code: string): string {
  return code.replace(/<+$/, '');
}

export function isIcaoCode(code: string): boolean {
  return CODES.has(stripCodeFillers(code));
}

export function isSpecimenCode(code: string): boolean {
  return SPECIMEN_CODES.has(stripCodeFillers(code));
}
