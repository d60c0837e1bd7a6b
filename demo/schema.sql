-- The demo database: street trees of an imaginary city, Alderbrook.
-- demo/build.ts creates demo/demo.db from this schema plus generated rows.
CREATE TABLE neighborhoods (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    district TEXT NOT NULL
);
CREATE TABLE species (
    id INTEGER PRIMARY KEY,
    common_name TEXT NOT NULL,
    latin_name TEXT NOT NULL,
    native INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE trees (
    id INTEGER PRIMARY KEY,
    species_id INTEGER REFERENCES species(id),
    neighborhood_id INTEGER REFERENCES neighborhoods(id),
    address TEXT,
    planted TEXT,
    height_m REAL,
    condition TEXT,
    tags TEXT,
    notes TEXT,
    latitude REAL,
    longitude REAL
);
CREATE INDEX trees_species ON trees(species_id);
CREATE INDEX trees_neighborhood ON trees(neighborhood_id);
CREATE TABLE inspections (
    tree_id INTEGER NOT NULL REFERENCES trees(id),
    inspected TEXT NOT NULL,
    inspector TEXT,
    result TEXT,
    PRIMARY KEY (tree_id, inspected)
);
CREATE TABLE requests (
    -- A request without words is no request: the form says so instead of storing it.
    message TEXT NOT NULL CHECK (length(trim(message)) > 0),
    submitted TEXT
);
CREATE VIEW tall_trees AS
    SELECT trees.id, species.common_name, trees.address, trees.height_m
    FROM trees JOIN species ON species.id = trees.species_id
    WHERE trees.height_m >= 20 ORDER BY trees.height_m DESC;
CREATE VIRTUAL TABLE trees_fts USING fts5(address, notes, content="trees", content_rowid="id");
