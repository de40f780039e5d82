#!/usr/bin/env python3
"""Write listings.txt: ~6000 short product listings, one per line, with many
near-duplicate listings (the same product re-posted with small edits)."""
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
N_DOCS = 6000

BRANDS = ["Acme", "Nordvik", "Kestrel", "Solara", "Brightline", "Ironwood", "Pomelo",
          "Vantage", "Hollis", "Quarry", "Tidewater", "Zephyr", "Marlow", "Corvid",
          "Lumen", "Aster", "Granite & Co", "Fjell", "Osprey", "Bramble"]
PRODUCTS = ["kettle", "desk lamp", "backpack", "office chair", "blender", "rain jacket",
            "coffee grinder", "hiking boot", "wireless speaker", "cast iron skillet",
            "yoga mat", "water bottle", "bookshelf", "air purifier", "toaster",
            "duvet cover", "electric toothbrush", "camping tent", "headphones",
            "standing desk", "garden hose", "rice cooker", "wall clock", "sleeping bag",
            "bike helmet", "laptop sleeve", "chef knife", "space heater", "floor rug",
            "table fan"]
ADJ = ["compact", "lightweight", "durable", "premium", "classic", "modern", "rugged",
       "ergonomic", "quiet", "portable", "stylish", "heavy-duty", "minimalist",
       "foldable", "versatile", "energy-efficient", "handcrafted", "waterproof"]
MATERIALS = ["stainless steel", "bamboo", "recycled polyester", "oak", "aluminium",
             "cotton", "ceramic", "BPA-free plastic", "leather", "tempered glass",
             "nylon", "walnut", "silicone", "wool blend"]
FEATURES = ["a two-year warranty", "an auto shut-off", "a removable lid", "adjustable height",
            "a padded strap", "a USB-C charging port", "a non-slip base", "dishwasher-safe parts",
            "a reinforced frame", "three speed settings", "a carry handle", "a soft-touch finish",
            "an LED indicator", "a magnetic closure", "a spare filter", "a travel pouch",
            "a wide opening", "a temperature dial", "breathable mesh panels", "a hanging loop",
            "quick-release buckles", "a keep-warm mode", "a 360-degree swivel", "a timer"]
COLORS = ["black", "white", "slate grey", "forest green", "navy", "sand", "burgundy",
          "sky blue", "charcoal", "mustard", "terracotta", "silver"]
EXTRAS = ["Ships within two business days.", "Free returns for 30 days.",
          "Ideal as a gift.", "Assembly required, tools included.",
          "Perfect for small apartments.", "Loved by outdoor enthusiasts.",
          "Limited stock available.", "Certified refurbished unit.",
          "Bundle and save on accessories.", "Customer favourite this season.",
          "Fits most standard sizes.", "Easy to clean and maintain."]
SYLLABLES = ["ka", "lo", "mi", "ren", "tus", "var", "do", "pel", "shi", "nor", "ba",
             "quin", "te", "sar", "gu", "fi", "ment", "zo", "lir", "cha", "ob", "wen"]
VOCAB = sorted({a + b + c for a in SYLLABLES for b in SYLLABLES for c in ["", "s", "ed", "ing", "a"]})
FILLER = ["great", "value", "new", "genuine", "sale", "best", "top", "rated", "deal",
          "original", "official", "fast", "shipping", "hot", "item"]


def base_listing(rng):
    brand = rng.choice(BRANDS)
    prod = rng.choice(PRODUCTS)
    model = "%s-%d" % (rng.choice("ABCDEFGHKMPRSTVXZ"), rng.randint(100, 9999))
    feats = rng.sample(FEATURES, rng.randint(2, 4))
    words = ["%s %s %s -" % (brand, prod, model),
             "%s %s %s %s with %s." % (rng.choice(["A", "This", "Our"]), rng.choice(ADJ),
                                       rng.choice(MATERIALS), prod,
                                       ", ".join(feats[:-1]) + " and " + feats[-1]),
             "Colour: %s." % rng.choice(COLORS),
             "Size %dx%d cm, weight %.1f kg." % (rng.randint(5, 120), rng.randint(5, 120),
                                                 rng.randint(2, 250) / 10.0)]
    # a free-text seller note, different for every product
    note = [rng.choice(VOCAB) for _ in range(rng.randint(14, 30))]
    words.append("Seller note: " + " ".join(note) + ".")
    for e in rng.sample(EXTRAS, rng.randint(1, 4)):
        words.append(e)
    if rng.random() < 0.3:
        words.append(rng.choice(ADJ).capitalize() + " " + rng.choice(MATERIALS) +
                     " construction keeps it looking new for years.")
    return " ".join(words)


def mutate(rng, text):
    toks = text.split(" ")
    for _ in range(rng.randint(1, 5)):
        op = rng.random()
        i = rng.randrange(len(toks))
        if op < 0.3 and len(toks) > 8:
            del toks[i]
        elif op < 0.55:
            toks.insert(i, rng.choice(FILLER))
        elif op < 0.75:
            toks[i] = rng.choice(FILLER + ADJ)
        elif op < 0.85:
            j = rng.randrange(len(toks))
            toks[i], toks[j] = toks[j], toks[i]
        else:
            toks[i] = toks[i].upper()
    out = " ".join(toks)
    if rng.random() < 0.2:
        out = rng.choice(["NEW! ", "SALE: ", "[Used] ", "Hot deal - "]) + out
    if rng.random() < 0.2:
        out = out + " " + rng.choice(EXTRAS)
    return out


def main():
    rng = random.Random(7741)
    docs = []
    while len(docs) < N_DOCS:
        base = base_listing(rng)
        docs.append(base)
        r = rng.random()
        copies = 0 if r < 0.45 else (1 if r < 0.7 else rng.randint(2, 9))
        if rng.random() < 0.02:
            copies = rng.randint(15, 40)   # a heavily re-posted item
        parent = base
        for _ in range(copies):
            # sometimes copy a copy, so clusters drift
            src = parent if rng.random() < 0.3 else base
            parent = mutate(rng, src)
            docs.append(parent)
    docs = docs[:N_DOCS]
    rng.shuffle(docs)
    with open(os.path.join(HERE, "listings.txt"), "w") as f:
        f.write("\n".join(docs) + "\n")


if __name__ == "__main__":
    main()
