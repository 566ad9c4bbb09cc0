// The bundle's entry: one global for the page's plain script.
import { create } from "./editor.js";

globalThis.KldEditor = { create };
