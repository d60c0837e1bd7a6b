// Entry for static/vendor/csv.js: Papa Parse, the CSV parser of the upload panel (static/upload.js).
import Papa from "papaparse";
export { Papa };
