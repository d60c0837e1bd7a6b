/** Vitrine's version, shown by `--version` and `/-/versions.json`. */
export const VERSION = "0.1.0";
