/**
 * Reads SpatiaLite's geometry BLOBs (the format its geometry columns store: a header with the
 * SRID and bounding box, a class code, the coordinates, an end mark) as WKT, so a geometry cell
 * reads `POINT(1.5 2.5)` rather than "Binary: 60 bytes" — with or without the extension loaded.
 * Compressed geometries and anything that does not follow the format give null (the cell then
 * stays a binary value).
 *
 * @module
 */

const START = 0x00;
const MBR_END = 0x7c;
const ENTITY = 0x69;
const END = 0xfe;
const HEADER_BYTES = 43;

const KINDS = [
  "",
  "POINT",
  "LINESTRING",
  "POLYGON",
  "MULTIPOINT",
  "MULTILINESTRING",
  "MULTIPOLYGON",
  "GEOMETRYCOLLECTION",
];

/** A SpatiaLite geometry: its SRID and its WKT. */
export interface SpatialiteGeometry {
  srid: number;
  wkt: string;
}

class Reader {
  offset: number;
  constructor(readonly view: DataView, readonly little: boolean, offset: number) {
    this.offset = offset;
  }
  int(): number {
    const value = this.view.getInt32(this.offset, this.little);
    this.offset += 4;
    return value;
  }
  double(): number {
    const value = this.view.getFloat64(this.offset, this.little);
    this.offset += 8;
    return value;
  }
  byte(): number {
    return this.view.getUint8(this.offset++);
  }
}

/** True when `bytes` has SpatiaLite's geometry framing (start, endianness, MBR and end marks). */
export function isSpatialiteGeometry(bytes: Uint8Array): boolean {
  return bytes.length > HEADER_BYTES && bytes[0] === START && (bytes[1] === 0 || bytes[1] === 1) &&
    bytes[38] === MBR_END && bytes[bytes.length - 1] === END;
}

/** The geometry in `bytes` as WKT with its SRID, or null when it is not one this reads. */
export function spatialiteGeometry(bytes: Uint8Array): SpatialiteGeometry | null {
  if (!isSpatialiteGeometry(bytes)) return null;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const reader = new Reader(view, bytes[1] === 1, 2);
  try {
    const srid = reader.int();
    reader.offset = 39;
    const wkt = geometry(reader, reader.int());
    if (wkt === null || reader.offset !== bytes.length - 1) return null;
    return { srid, wkt };
  } catch {
    return null; // shorter than its counts say
  }
}

/** WKT of one geometry of class `code` (1–7, plus 1000 for Z, 2000 for M, 3000 for ZM). */
function geometry(reader: Reader, code: number): string | null {
  const dims = Math.floor(code / 1000);
  const kind = KINDS[code % 1000];
  if (!kind || dims > 3 || code >= 1000000) return null; // compressed: not read here
  const size = 2 + (dims === 1 || dims === 2 ? 1 : dims === 3 ? 2 : 0);
  const suffix = ["", " Z", " M", " ZM"][dims];
  const point = () => {
    const values: number[] = [];
    for (let i = 0; i < size; i++) values.push(reader.double());
    return values.map(String).join(" ");
  };
  const points = () => {
    const count = reader.int();
    const out: string[] = [];
    for (let i = 0; i < count; i++) out.push(point());
    return `(${out.join(", ")})`;
  };
  const rings = () => {
    const count = reader.int();
    const out: string[] = [];
    for (let i = 0; i < count; i++) out.push(points());
    return `(${out.join(", ")})`;
  };
  switch (kind) {
    case "POINT":
      return `POINT${suffix}(${point()})`;
    case "LINESTRING":
      return `LINESTRING${suffix}${points()}`;
    case "POLYGON":
      return `POLYGON${suffix}${rings()}`;
  }
  // Collections: each member is marked, then carries its own class code.
  const count = reader.int();
  const members: string[] = [];
  for (let i = 0; i < count; i++) {
    if (reader.byte() !== ENTITY) return null;
    const member = geometry(reader, reader.int());
    if (member === null) return null;
    // MULTIPOINT((1 2), (3 4)) keeps each member's parentheses, without its name.
    members.push(kind === "GEOMETRYCOLLECTION" ? member : member.replace(/^[A-Z ]+/, ""));
  }
  return `${kind}${suffix}(${members.join(", ")})`;
}
