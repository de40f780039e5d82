#!/usr/bin/env python3
"""Write league.txt: sixteen teams with dice attack/defence ratings."""
import random

NAMES = ["Ashford", "Bramwell", "Carrow", "Dunmore", "Elmstead", "Fairholt",
         "Glenridge", "Harrowby", "Ivybridge", "Jarrowgate", "Kilnsey",
         "Langholm", "Marston", "Northwick", "Oakhampton", "Pellworth"]

def main():
    rng = random.Random(20240611)
    with open("league.txt", "w", newline="\n") as f:
        f.write("# team  attack-dice  defence(1-5)\n")
        for name in NAMES:
            # keep the league competitive: attack + defence between 7 and 9
            while True:
                attack = rng.randint(3, 7)
                defence = rng.randint(2, 5)
                if 7 <= attack + defence <= 9:
                    break
            f.write("%-12s %d %d\n" % (name, attack, defence))

if __name__ == "__main__":
    main()
