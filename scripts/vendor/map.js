// Entry for static/vendor/map.js: Leaflet, then the marker-cluster plugin, which attaches itself
// to the global `L` that Leaflet's UMD build sets.
import L from "leaflet";
import "leaflet.markercluster";
export { L };
