#!/usr/bin/env python3
"""Writes names.txt (product names) and name_queries.txt for edit_matrix."""
import random

rng = random.Random(20240611)

brands = ["Acme", "Northwind", "Contoso", "Globex", "Initech", "Umbrella", "Stark", "Wayne",
          "Hooli", "Vandelay", "Soylent", "Tyrell", "Cyberdyne", "Zenith", "Orion", "Apex"]
adjectives = ["Pro", "Mini", "Max", "Ultra", "Lite", "Smart", "Eco", "Classic", "Deluxe",
              "Compact", "Turbo", "Silent", "Wireless", "Digital", "Portable", "Heavy"]
nouns = ["Kettle", "Toaster", "Blender", "Drill", "Lamp", "Router", "Speaker", "Mouse",
         "Keyboard", "Monitor", "Heater", "Fan", "Camera", "Charger", "Scale", "Vacuum",
         "Grill", "Mixer", "Shaver", "Headset", "Printer", "Tablet", "Watch", "Stove"]
colours = ["Black", "White", "Red", "Blue", "Silver", "Green", "Grey"]


def make_name():
    parts = [rng.choice(brands)]
    if rng.random() < 0.7:
        parts.append(rng.choice(adjectives))
    parts.append(rng.choice(nouns))
    if rng.random() < 0.6:
        parts.append("%s%d" % (rng.choice("ABCDEFGHKLMXZ"), rng.randint(1, 999)))
    if rng.random() < 0.3:
        parts.append(rng.choice(colours))
    if rng.random() < 0.15:
        parts.append("%dW" % rng.choice([20, 40, 60, 100, 250, 500, 1200, 2000]))
    s = " ".join(parts)
    if len(s) > 40:
        s = s[:40].rstrip()
    while len(s) < 5:
        s += "X"
    return s


def mutate(s):
    s = list(s)
    for _ in range(rng.randint(1, 3)):
        op = rng.random()
        pos = rng.randrange(len(s))
        if op < 0.4:
            s[pos] = rng.choice("abcdefghijklmnopqrstuvwxyz0123456789")
        elif op < 0.7 and len(s) > 5:
            del s[pos]
        elif len(s) < 40:
            s.insert(pos, rng.choice("abcdefghijklmnopqrstuvwxyz"))
    return "".join(s)


names = []
seen = set()
while len(names) < 2500:
    if names and rng.random() < 0.08:
        s = mutate(rng.choice(names))
    else:
        s = make_name()
    if s not in seen:
        seen.add(s)
        names.append(s)

with open("names.txt", "w", newline="\n") as f:
    for s in names:
        f.write(s + "\n")

queries = [mutate(rng.choice(names)) for _ in range(6)] + ["Acme Smart Kettle", "wireless mouse black"]
with open("name_queries.txt", "w", newline="\n") as f:
    for s in queries:
        f.write(s + "\n")
