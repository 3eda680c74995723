// Deterministic synthetic text: English-like sentences from a seeded RNG, so every run and every
// machine packs exactly the same tokens. Nodes are cut to an exact cl100k token count.
import { createRng } from "./rng.mjs";
import { cl100kCount } from "./tokens.mjs";

const TOPICS = {
  reactor: {
    nouns: [
      "reactor",
      "coolant",
      "turbine",
      "pump",
      "valve",
      "core",
      "operator",
      "sensor",
      "pressure",
      "loop",
    ],
    verbs: ["cooled", "measured", "isolated", "regulated", "inspected", "vented", "throttled", "calibrated"],
    adjectives: ["primary", "secondary", "thermal", "redundant", "pressurised", "auxiliary", "nominal"],
  },
  river: {
    nouns: ["river", "estuary", "salmon", "sediment", "wetland", "delta", "floodplain", "heron", "channel"],
    verbs: ["flooded", "eroded", "migrated", "spawned", "silted", "meandered", "drained", "nourished"],
    adjectives: ["brackish", "seasonal", "shallow", "muddy", "tidal", "fertile", "upstream", "downstream"],
  },
  railway: {
    nouns: ["timetable", "locomotive", "platform", "signal", "junction", "carriage", "conductor", "depot"],
    verbs: ["departed", "shunted", "delayed", "coupled", "scheduled", "rerouted", "boarded", "signalled"],
    adjectives: ["overnight", "regional", "express", "electrified", "narrow", "crowded", "punctual"],
  },
  bakery: {
    nouns: ["dough", "oven", "flour", "starter", "crust", "baker", "loaf", "yeast", "pastry", "butter"],
    verbs: ["kneaded", "proofed", "baked", "folded", "glazed", "scored", "cooled", "rested"],
    adjectives: ["sourdough", "golden", "crisp", "buttery", "rustic", "wholemeal", "airy", "dense"],
  },
  archive: {
    nouns: ["manuscript", "ledger", "archivist", "catalogue", "parchment", "charter", "folio", "index"],
    verbs: ["transcribed", "catalogued", "restored", "digitised", "annotated", "dated", "bound", "filed"],
    adjectives: ["medieval", "fragile", "illuminated", "handwritten", "municipal", "faded", "rare"],
  },
};

const SHARED = {
  nouns: ["report", "team", "season", "region", "system", "record", "study", "morning", "problem", "result"],
  verbs: ["showed", "described", "suggested", "confirmed", "required", "changed", "followed", "improved"],
  adjectives: ["new", "old", "large", "small", "careful", "early", "late", "important", "local", "final"],
  adverbs: ["quickly", "carefully", "rarely", "usually", "eventually", "slowly", "quietly", "twice"],
  prepositions: ["near", "after", "before", "during", "under", "beside", "across", "without", "through"],
  names: ["Marta", "Okafor", "Lindqvist", "Haruki", "Delacroix", "Nguyen", "Fitzgerald", "Abernathy"],
  connectives: ["However,", "Meanwhile,", "In 1987,", "By contrast,", "As a result,", "Later that year,"],
};

export const TOPIC_NAMES = Object.keys(TOPICS);

function capitalize(word) {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

/** One sentence, mostly about `topic` (shared vocabulary mixed in). */
function sentence(rng, topic) {
  const bank = TOPICS[topic];
  const noun = () => (rng.chance(0.7) ? rng.pick(bank.nouns) : rng.pick(SHARED.nouns));
  const verb = () => (rng.chance(0.7) ? rng.pick(bank.verbs) : rng.pick(SHARED.verbs));
  const adjective = () => (rng.chance(0.6) ? rng.pick(bank.adjectives) : rng.pick(SHARED.adjectives));
  const phrase = () => `the ${rng.chance(0.5) ? `${adjective()} ` : ""}${noun()}`;
  const parts = [];
  if (rng.chance(0.2)) parts.push(rng.pick(SHARED.connectives));
  parts.push(rng.chance(0.15) ? rng.pick(SHARED.names) : phrase());
  if (rng.chance(0.3)) parts.push(rng.pick(SHARED.adverbs));
  parts.push(verb(), phrase());
  if (rng.chance(0.6)) parts.push(rng.pick(SHARED.prepositions), phrase());
  if (rng.chance(0.25)) parts.push(`in ${1900 + rng.int(125)}`);
  if (rng.chance(0.2)) parts.push(`and ${verb()} ${rng.int(90) + 2} ${noun()}s`);
  const text = parts.join(" ");
  return `${capitalize(text)}${rng.chance(0.1) ? "!" : "."}`;
}

/** `count` sentences cycling through the topics in runs of a few sentences. */
export function sentences(seed, count, topics = TOPIC_NAMES) {
  const rng = createRng(seed);
  const out = [];
  let topic = rng.pick(topics);
  for (let i = 0; i < count; i++) {
    if (rng.chance(0.25)) topic = rng.pick(topics);
    out.push({ topic, text: sentence(rng, topic) });
  }
  return out;
}

/**
 * A paragraph of exactly `tokens` cl100k tokens (short filler words close the gap), or one fewer
 * in the rare case where no single filler word fits.
 */
export function textOfTokens(seed, tokens) {
  const rng = createRng(seed);
  const topic = rng.pick(TOPIC_NAMES);
  // Sentences and filler words tokenize independently (each starts with " Word"), so counts add up;
  // the sum is checked against an exact count at the end and the slow exact path used if they differ.
  const fast = build(rng, topic, tokens, (_text, next, textTokens) => textTokens + cl100kCount(next));
  if (cl100kCount(fast.text) === fast.tokens) return fast.text;
  const slow = build(createRng(seed), topic, tokens, (text, next) => cl100kCount(text + next), true);
  return slow.text;
}

const FILLERS = [" and", " the", " so", " then", " it", " was", " noted"];

function build(rng, topic, tokens, countWith, reseed = false) {
  if (reseed) rng.pick(TOPIC_NAMES);
  let text = "";
  let textTokens = 0;
  for (;;) {
    const next = text === "" ? sentence(rng, topic) : ` ${sentence(rng, topic)}`;
    const total = countWith(text, next, textTokens);
    if (total > tokens) break;
    text += next;
    textTokens = total;
  }
  for (let guard = 0; textTokens < tokens && guard < 64; guard++) {
    const filler = FILLERS.find((word) => countWith(text, word, textTokens) <= tokens);
    if (!filler) break;
    textTokens = countWith(text, filler, textTokens);
    text += filler;
  }
  return { text, tokens: textTokens };
}

/** `count` node texts of `tokens` cl100k tokens each, all different. */
export function nodeTexts({ count, tokens, seed = 1 }) {
  const texts = [];
  for (let i = 0; i < count; i++) texts.push(textOfTokens(seed * 100_003 + i, tokens));
  return texts;
}

/** A query of about `tokens` cl100k tokens (a question, padded with context sentences). */
export function queryOfTokens(seed, tokens) {
  if (tokens <= 12) return "What happened to the primary coolant loop last winter?";
  const body = textOfTokens(seed, tokens - 10);
  return `${body} Given all that, what happened to the coolant loop?`;
}

/** A fixed pool of ~`tokens`-token answers, one per call index, the same for both libraries. */
export function answerPool({ size = 64, tokens = 50, seed = 7 } = {}) {
  const answers = [];
  for (let i = 0; i < size; i++) answers.push(textOfTokens(seed * 7919 + i, tokens));
  return answers;
}
